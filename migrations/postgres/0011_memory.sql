-- Long-term memory: facts about each person (optionally for one assistant), their history
-- (an update supersedes a fact, which stays inactive), full-text indexed; and each person's
-- settings (on/off, the summary of their context).
CREATE TABLE memory_facts (
    fact_id       TEXT             PRIMARY KEY,
    owner         TEXT             NOT NULL,
    assistant_id  TEXT,
    content       TEXT             NOT NULL,
    category      TEXT             NOT NULL,
    confidence    DOUBLE PRECISION NOT NULL,
    confirmations BIGINT           NOT NULL DEFAULT 0,
    source_thread TEXT,
    supersedes    TEXT,
    active        BOOLEAN          NOT NULL DEFAULT TRUE,
    created_at    TIMESTAMPTZ      NOT NULL,
    updated_at    TIMESTAMPTZ      NOT NULL,
    last_used_at  TIMESTAMPTZ,
    tsv           TSVECTOR GENERATED ALWAYS AS (to_tsvector('simple', content)) STORED
);
CREATE INDEX memory_facts_owner ON memory_facts (owner, active, updated_at DESC);
CREATE INDEX memory_facts_tsv ON memory_facts USING GIN (tsv);

CREATE TABLE memory_settings (
    owner      TEXT        PRIMARY KEY,
    enabled    BOOLEAN     NOT NULL,
    summary    TEXT,
    updated_at TIMESTAMPTZ NOT NULL
);
