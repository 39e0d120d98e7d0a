-- Long-term memory: facts about each person (optionally for one assistant), their history
-- (an update supersedes a fact, which stays inactive), full-text indexed; and each person's
-- settings (on/off, the summary of their context).
CREATE TABLE memory_facts (
    fact_id       TEXT    PRIMARY KEY NOT NULL,
    owner         TEXT    NOT NULL,
    assistant_id  TEXT,
    content       TEXT    NOT NULL,
    category      TEXT    NOT NULL,
    confidence    REAL    NOT NULL,
    confirmations INTEGER NOT NULL DEFAULT 0,
    source_thread TEXT,
    supersedes    TEXT,
    active        INTEGER NOT NULL DEFAULT 1 CHECK (active IN (0, 1)),
    created_at    TEXT    NOT NULL,
    updated_at    TEXT    NOT NULL,
    last_used_at  TEXT
);
CREATE INDEX memory_facts_owner ON memory_facts (owner, active, updated_at DESC);

CREATE VIRTUAL TABLE memory_fts USING fts5(
    content, content = 'memory_facts', content_rowid = 'rowid', tokenize = 'unicode61'
);
CREATE TRIGGER memory_facts_ai AFTER INSERT ON memory_facts BEGIN
    INSERT INTO memory_fts (rowid, content) VALUES (new.rowid, new.content);
END;
CREATE TRIGGER memory_facts_ad AFTER DELETE ON memory_facts BEGIN
    INSERT INTO memory_fts (memory_fts, rowid, content) VALUES ('delete', old.rowid, old.content);
END;
CREATE TRIGGER memory_facts_au AFTER UPDATE OF content ON memory_facts BEGIN
    INSERT INTO memory_fts (memory_fts, rowid, content) VALUES ('delete', old.rowid, old.content);
    INSERT INTO memory_fts (rowid, content) VALUES (new.rowid, new.content);
END;

CREATE TABLE memory_settings (
    owner      TEXT    PRIMARY KEY NOT NULL,
    enabled    INTEGER NOT NULL CHECK (enabled IN (0, 1)),
    summary    TEXT,
    updated_at TEXT    NOT NULL
);
