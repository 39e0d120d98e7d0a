-- Feedback on answers: each person's thumbs up or down on a run of their conversation, with
-- an optional comment; one row per run and person (given again, it replaces the old one).
-- It goes with its run (and so with its thread). Listed by thread for the chat, by run for
-- the runs console, and exported by time of change for admins.
CREATE TABLE run_feedback (
    run_id     TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
    owner      TEXT NOT NULL,
    thread_id  TEXT NOT NULL,
    rating     TEXT NOT NULL CHECK (rating IN ('up', 'down')),
    comment    TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (run_id, owner)
);
CREATE INDEX run_feedback_thread ON run_feedback (thread_id, owner);
CREATE INDEX run_feedback_updated ON run_feedback (updated_at, run_id, owner);
