-- The admin runs console: each run's timeline (its model calls, tool calls and subagents as
-- JSON text, written once when it ends; NULL for runs from before it was kept, or still
-- working), and indexes for listing runs across people newest first, by person, and a run's
-- subagents (`metadata.parent_run_id`; the console's queries use this very expression).
ALTER TABLE runs ADD COLUMN timeline TEXT;
CREATE INDEX runs_created ON runs (created_at);
CREATE INDEX runs_owner_created ON runs (owner, created_at);
CREATE INDEX runs_parent ON runs (json_extract(metadata, '$.parent_run_id'));
