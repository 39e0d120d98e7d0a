-- The PostgreSQL schema: the same tables as migrations/sqlite, with native JSON and times.

CREATE TABLE skill_states (
    category   TEXT        NOT NULL CHECK (category IN ('public', 'custom')),
    name       TEXT        NOT NULL,
    enabled    BOOLEAN     NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (category, name)
);

CREATE TABLE threads (
    thread_id  TEXT PRIMARY KEY,
    owner      TEXT        NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL,
    metadata   JSONB       NOT NULL DEFAULT '{}',
    status     TEXT        NOT NULL DEFAULT 'idle',
    state      JSONB       NOT NULL DEFAULT '{}'
);
CREATE INDEX threads_owner_created ON threads (owner, created_at DESC);
CREATE INDEX threads_owner_updated ON threads (owner, updated_at DESC);
CREATE INDEX threads_metadata ON threads USING GIN (metadata jsonb_path_ops);

CREATE TABLE runs (
    run_id             TEXT PRIMARY KEY,
    thread_id          TEXT        NOT NULL,
    owner              TEXT        NOT NULL,
    assistant_id       TEXT        NOT NULL,
    status             TEXT        NOT NULL,
    stop_reason        TEXT,
    error              TEXT,
    multitask_strategy TEXT        NOT NULL,
    metadata           JSONB       NOT NULL DEFAULT '{}',
    kwargs             JSONB       NOT NULL DEFAULT '{}',
    instance           TEXT        NOT NULL DEFAULT '',
    input_tokens       BIGINT      NOT NULL DEFAULT 0,
    output_tokens      BIGINT      NOT NULL DEFAULT 0,
    model_calls        BIGINT      NOT NULL DEFAULT 0,
    created_at         TIMESTAMPTZ NOT NULL,
    updated_at         TIMESTAMPTZ NOT NULL
);
CREATE INDEX runs_thread_created ON runs (thread_id, created_at DESC);
CREATE INDEX runs_active ON runs (status) WHERE status IN ('pending', 'running');

CREATE TABLE run_events (
    run_id TEXT   NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
    seq    BIGINT NOT NULL,
    event  TEXT   NOT NULL,
    data   TEXT   NOT NULL,
    PRIMARY KEY (run_id, seq)
);

CREATE TABLE thread_checkpoints (
    checkpoint_id TEXT PRIMARY KEY,
    thread_id     TEXT        NOT NULL,
    run_id        TEXT,
    parent_id     TEXT,
    step          BIGINT      NOT NULL,
    state         JSONB       NOT NULL,
    created_at    TIMESTAMPTZ NOT NULL
);
CREATE INDEX thread_checkpoints_thread ON thread_checkpoints (thread_id, step DESC);

-- Live server instances (replicas) and when each last said so.
CREATE TABLE instances (
    instance_id  TEXT PRIMARY KEY,
    heartbeat_at TIMESTAMPTZ NOT NULL
);
