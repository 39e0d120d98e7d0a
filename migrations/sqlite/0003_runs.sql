-- Agent runs, their event logs (for replay) and thread checkpoints (for history).
CREATE TABLE runs (
    run_id             TEXT PRIMARY KEY NOT NULL,
    thread_id          TEXT NOT NULL,
    owner              TEXT NOT NULL,
    assistant_id       TEXT NOT NULL,
    status             TEXT NOT NULL,
    stop_reason        TEXT,
    error              TEXT,
    multitask_strategy TEXT NOT NULL,
    metadata           TEXT NOT NULL DEFAULT '{}',
    kwargs             TEXT NOT NULL DEFAULT '{}',
    instance           TEXT NOT NULL DEFAULT '',
    input_tokens       INTEGER NOT NULL DEFAULT 0,
    output_tokens      INTEGER NOT NULL DEFAULT 0,
    model_calls        INTEGER NOT NULL DEFAULT 0,
    created_at         TEXT NOT NULL,
    updated_at         TEXT NOT NULL
);
CREATE INDEX runs_thread_created ON runs (thread_id, created_at DESC);
CREATE INDEX runs_status ON runs (status);

CREATE TABLE run_events (
    run_id TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
    seq    INTEGER NOT NULL,
    event  TEXT NOT NULL,
    data   TEXT NOT NULL,
    PRIMARY KEY (run_id, seq)
);

CREATE TABLE thread_checkpoints (
    checkpoint_id TEXT PRIMARY KEY NOT NULL,
    thread_id     TEXT NOT NULL,
    run_id        TEXT,
    parent_id     TEXT,
    step          INTEGER NOT NULL,
    state         TEXT NOT NULL,
    created_at    TEXT NOT NULL
);
CREATE INDEX thread_checkpoints_thread ON thread_checkpoints (thread_id, created_at DESC);
