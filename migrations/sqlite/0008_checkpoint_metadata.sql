-- LangGraph checkpoint metadata (source, step, parents, writes, run_id, ...). `step` stays
-- the checkpoint's position in its thread (the order of the history across branches); the
-- LangGraph step of a branch is in the metadata. Older checkpoints have none.
ALTER TABLE thread_checkpoints ADD COLUMN metadata TEXT;
