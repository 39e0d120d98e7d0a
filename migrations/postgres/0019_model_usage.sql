-- What model calls used and cost: one row per run, model and UTC day (a run adds to its rows
-- when it ends; its subagents are runs of their own). No foreign keys: usage outlives the
-- runs and threads it came from (deleting a conversation does not refund it). `day` is
-- `YYYY-MM-DD` text in both engines so the same SQL groups and compares it.
CREATE TABLE model_usage (
    owner               TEXT             NOT NULL,
    run_id              TEXT             NOT NULL,
    thread_id           TEXT             NOT NULL,
    model               TEXT             NOT NULL,
    day                 TEXT             NOT NULL,
    model_calls         BIGINT           NOT NULL DEFAULT 0,
    input_tokens        BIGINT           NOT NULL DEFAULT 0,
    cached_input_tokens BIGINT           NOT NULL DEFAULT 0,
    cache_write_tokens  BIGINT           NOT NULL DEFAULT 0,
    output_tokens       BIGINT           NOT NULL DEFAULT 0,
    reasoning_tokens    BIGINT           NOT NULL DEFAULT 0,
    cost_usd            DOUBLE PRECISION NOT NULL DEFAULT 0,
    PRIMARY KEY (run_id, model, day)
);
CREATE INDEX model_usage_owner_day ON model_usage (owner, day);
CREATE INDEX model_usage_day ON model_usage (day);

-- Per-person daily limits set by an admin; a NULL limit falls back to the configured default.
CREATE TABLE usage_limits (
    owner            TEXT PRIMARY KEY,
    tokens_per_day   BIGINT,
    cost_usd_per_day DOUBLE PRECISION,
    updated_at       TIMESTAMPTZ NOT NULL
);

-- A run's cached and reasoning tokens and cost, beside its other counters.
ALTER TABLE runs ADD COLUMN cached_input_tokens BIGINT NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN reasoning_tokens BIGINT NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN cost_usd DOUBLE PRECISION NOT NULL DEFAULT 0;
