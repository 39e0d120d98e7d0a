-- Full-text search over each person's conversations: a thread's title and the text of its
-- messages (human and AI text whole up to 20,000 characters a message, tool output only its
-- first 500; the newest 200,000 characters of a long conversation), kept by triggers: a
-- thread is indexed when it is written while no run works on it (a state update, a title
-- change, a copy, a change of owner) and when a run ends (its status leaves `busy`), not on
-- each of a run's checkpoints (re-reading the whole conversation at every step costs more
-- the longer it gets); a delete takes it away. An FTS5 index with
-- the trigram tokenizer finds any substring of three or more characters, Chinese included;
-- shorter words are matched with LIKE on `thread_search` (the owner's rows only).

-- The text a thread is found by, computed from its row (so both the triggers and the
-- backfill below read it from one place).
CREATE VIEW thread_search_source AS
SELECT
    thread_id,
    owner,
    substr(COALESCE(
        CASE WHEN json_type(metadata, '$.title') = 'text' THEN json_extract(metadata, '$.title') END,
        CASE WHEN json_type(state, '$.title') = 'text' THEN json_extract(state, '$.title') END,
        ''), 1, 500) AS title,
    substr(COALESCE((
        SELECT group_concat(text, char(10)) FROM (
            SELECT substr(
                CASE json_type(m.value, '$.content')
                    WHEN 'text' THEN json_extract(m.value, '$.content')
                    WHEN 'array' THEN (
                        SELECT group_concat(json_extract(b.value, '$.text'), ' ')
                        FROM json_each(m.value, '$.content') AS b
                        WHERE b.type = 'object' AND json_type(b.value, '$.text') = 'text')
                END,
                1,
                CASE json_extract(m.value, '$.type') WHEN 'tool' THEN 500 ELSE 20000 END) AS text
            FROM json_each(threads.state, '$.messages') AS m
            WHERE json_type(threads.state, '$.messages') = 'array' AND m.type = 'object'
              AND json_extract(m.value, '$.type') IN ('human', 'ai', 'tool')
        ) WHERE text IS NOT NULL AND text <> ''
    ), ''), -200000) AS body
FROM threads;

-- One row per thread; `id` is the FTS rowid (declared, so VACUUM keeps it; AUTOINCREMENT,
-- so a deleted row's id is never given to another).
CREATE TABLE thread_search (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    thread_id TEXT NOT NULL UNIQUE REFERENCES threads (thread_id) ON DELETE CASCADE,
    owner     TEXT NOT NULL,
    title     TEXT NOT NULL,
    body      TEXT NOT NULL
);
CREATE INDEX thread_search_owner ON thread_search (owner);

CREATE VIRTUAL TABLE thread_search_fts USING fts5(
    title, body, content = 'thread_search', content_rowid = 'id', tokenize = 'trigram'
);

-- The FTS index follows its content table.
CREATE TRIGGER thread_search_fts_insert AFTER INSERT ON thread_search BEGIN
    INSERT INTO thread_search_fts (rowid, title, body) VALUES (NEW.id, NEW.title, NEW.body);
END;
CREATE TRIGGER thread_search_fts_delete AFTER DELETE ON thread_search BEGIN
    INSERT INTO thread_search_fts (thread_search_fts, rowid, title, body)
    VALUES ('delete', OLD.id, OLD.title, OLD.body);
END;
CREATE TRIGGER thread_search_fts_update AFTER UPDATE ON thread_search BEGIN
    INSERT INTO thread_search_fts (thread_search_fts, rowid, title, body)
    VALUES ('delete', OLD.id, OLD.title, OLD.body);
    INSERT INTO thread_search_fts (rowid, title, body) VALUES (NEW.id, NEW.title, NEW.body);
END;

-- The content table follows the threads. An update that leaves the text and owner as they
-- were writes nothing.
CREATE TRIGGER thread_search_thread_insert AFTER INSERT ON threads BEGIN
    INSERT INTO thread_search (thread_id, owner, title, body)
    SELECT thread_id, owner, title, body FROM thread_search_source WHERE thread_id = NEW.thread_id;
END;
CREATE TRIGGER thread_search_thread_update AFTER UPDATE OF state, metadata, owner, status ON threads
WHEN NEW.status <> 'busy' AND (OLD.status IS NOT NEW.status OR OLD.owner IS NOT NEW.owner
    OR OLD.state IS NOT NEW.state OR OLD.metadata IS NOT NEW.metadata)
BEGIN
    INSERT INTO thread_search (thread_id, owner, title, body)
    SELECT thread_id, owner, title, body FROM thread_search_source WHERE thread_id = NEW.thread_id
    ON CONFLICT (thread_id) DO UPDATE
    SET owner = excluded.owner, title = excluded.title, body = excluded.body
    WHERE thread_search.owner IS NOT excluded.owner OR thread_search.title IS NOT excluded.title
       OR thread_search.body IS NOT excluded.body;
END;
-- The foreign key removes the row too; said here as well so the FTS trigger runs whatever
-- the foreign-key setting of the connection.
CREATE TRIGGER thread_search_thread_delete AFTER DELETE ON threads BEGIN
    DELETE FROM thread_search WHERE thread_id = OLD.thread_id;
END;

-- Conversations from before this migration.
INSERT INTO thread_search (thread_id, owner, title, body)
SELECT thread_id, owner, title, body FROM thread_search_source;
