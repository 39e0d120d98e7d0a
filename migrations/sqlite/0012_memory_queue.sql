-- Conversations waiting for memory extraction: one row per thread (a new turn moves its due
-- time: debounced), claimed by one instance at a time; a claim older than a few minutes is
-- taken over (the instance died).
CREATE TABLE memory_queue (
    owner        TEXT    NOT NULL,
    thread_id    TEXT    NOT NULL,
    assistant_id TEXT,
    due_at       TEXT    NOT NULL,
    claimed_by   TEXT,
    claimed_at   TEXT,
    attempts     INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (owner, thread_id)
);
CREATE INDEX memory_queue_due ON memory_queue (due_at);
