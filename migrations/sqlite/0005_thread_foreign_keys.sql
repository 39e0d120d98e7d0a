-- Runs and checkpoints belong to their thread: foreign keys with ON DELETE CASCADE, so
-- deleting a thread is one statement; and a step is unique within its thread. SQLite adds
-- foreign keys by rebuilding the tables. Rows of threads that no longer exist are dropped;
-- duplicate steps (two saves that raced) are renumbered in order, links kept.

CREATE TABLE runs_new (
    run_id             TEXT PRIMARY KEY NOT NULL,
    thread_id          TEXT NOT NULL REFERENCES threads (thread_id) ON DELETE CASCADE,
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
INSERT INTO runs_new
    SELECT * FROM runs WHERE thread_id IN (SELECT thread_id FROM threads);

CREATE TABLE run_events_new (
    run_id TEXT NOT NULL REFERENCES runs_new (run_id) ON DELETE CASCADE,
    seq    INTEGER NOT NULL,
    event  TEXT NOT NULL,
    data   TEXT NOT NULL,
    PRIMARY KEY (run_id, seq)
);
INSERT INTO run_events_new
    SELECT * FROM run_events WHERE run_id IN (SELECT run_id FROM runs_new);

-- Nothing refers to the old tables any more, so dropping them deletes nothing else.
DROP TABLE run_events;
DROP TABLE runs;
-- Renaming also updates run_events_new's reference to runs_new.
ALTER TABLE runs_new RENAME TO runs;
ALTER TABLE run_events_new RENAME TO run_events;
CREATE INDEX runs_thread_created ON runs (thread_id, created_at DESC);
CREATE INDEX runs_status ON runs (status);

CREATE TABLE thread_checkpoints_new (
    checkpoint_id TEXT PRIMARY KEY NOT NULL,
    thread_id     TEXT NOT NULL REFERENCES threads (thread_id) ON DELETE CASCADE,
    run_id        TEXT,
    parent_id     TEXT,
    step          INTEGER NOT NULL,
    state         TEXT NOT NULL,
    created_at    TEXT NOT NULL,
    UNIQUE (thread_id, step)
);
INSERT INTO thread_checkpoints_new
    SELECT checkpoint_id, thread_id, run_id, parent_id,
           ROW_NUMBER() OVER (PARTITION BY thread_id ORDER BY step, created_at, checkpoint_id) - 1,
           state, created_at
    FROM thread_checkpoints WHERE thread_id IN (SELECT thread_id FROM threads);
DROP TABLE thread_checkpoints;
ALTER TABLE thread_checkpoints_new RENAME TO thread_checkpoints;
