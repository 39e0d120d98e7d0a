-- Runs and checkpoints belong to their thread: foreign keys with ON DELETE CASCADE, so
-- deleting a thread is one statement; and a step is unique within its thread. Rows of
-- threads that no longer exist are dropped; duplicate steps (two saves that raced) are
-- renumbered in order, links kept.

DELETE FROM runs WHERE thread_id NOT IN (SELECT thread_id FROM threads);
ALTER TABLE runs ADD CONSTRAINT runs_thread_fk
    FOREIGN KEY (thread_id) REFERENCES threads (thread_id) ON DELETE CASCADE;

DELETE FROM thread_checkpoints WHERE thread_id NOT IN (SELECT thread_id FROM threads);
UPDATE thread_checkpoints AS c SET step = r.n
FROM (
    SELECT checkpoint_id,
           ROW_NUMBER() OVER (PARTITION BY thread_id ORDER BY step, created_at, checkpoint_id) - 1 AS n
    FROM thread_checkpoints
) AS r
WHERE c.checkpoint_id = r.checkpoint_id AND c.step <> r.n;
ALTER TABLE thread_checkpoints ADD CONSTRAINT thread_checkpoints_thread_fk
    FOREIGN KEY (thread_id) REFERENCES threads (thread_id) ON DELETE CASCADE;
ALTER TABLE thread_checkpoints ADD CONSTRAINT thread_checkpoints_thread_step
    UNIQUE (thread_id, step);
