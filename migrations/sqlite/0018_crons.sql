-- Crons (LangGraph's scheduled runs): a schedule, the run request each tick starts, and when
-- it is next due (NULL when disabled or past end_time). `last_*` is the latest run it
-- started (its status is read from `runs` while the run exists). A thread's crons go with it.
CREATE TABLE crons (
    cron_id          TEXT        PRIMARY KEY NOT NULL,
    owner            TEXT        NOT NULL,
    assistant_id     TEXT        NOT NULL,
    thread_id        TEXT        REFERENCES threads (thread_id) ON DELETE CASCADE,
    schedule         TEXT        NOT NULL,
    timezone         TEXT,
    end_time         TEXT,
    on_run_completed TEXT,
    payload          TEXT        NOT NULL,
    metadata         TEXT        NOT NULL,
    enabled          INTEGER     NOT NULL CHECK (enabled IN (0, 1)),
    next_run_date    TEXT,
    last_run_id      TEXT,
    last_thread_id   TEXT,
    last_run_status  TEXT,
    last_run_at      TEXT,
    created_at       TEXT        NOT NULL,
    updated_at       TEXT        NOT NULL
);
CREATE INDEX crons_due ON crons (next_run_date) WHERE next_run_date IS NOT NULL;
CREATE INDEX crons_owner ON crons (owner, created_at);

-- One row per tick taken: the unique (cron_id, scheduled_for) makes a second run of the same
-- tick impossible, and a tick still `claimed` (no run yet) whose claimant died is taken over.
CREATE TABLE cron_ticks (
    cron_id       TEXT        NOT NULL REFERENCES crons (cron_id) ON DELETE CASCADE,
    scheduled_for TEXT        NOT NULL,
    claimed_by    TEXT        NOT NULL,
    claimed_at    TEXT        NOT NULL,
    thread_id     TEXT,
    run_id        TEXT,
    state         TEXT        NOT NULL,
    error         TEXT,
    PRIMARY KEY (cron_id, scheduled_for)
);
CREATE INDEX cron_ticks_open ON cron_ticks (claimed_at) WHERE state = 'claimed';
