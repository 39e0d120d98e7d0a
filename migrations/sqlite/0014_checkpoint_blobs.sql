-- Checkpoints store their messages once per thread: `checkpoint_blobs` holds each message's
-- JSON text by content hash, and a checkpoint keeps its state without `messages` plus the
-- list of hashes (`message_refs`; NULL for older checkpoints, whose state is whole). Storage
-- then grows with what changed, not with the size of the conversation at every step.
CREATE TABLE checkpoint_blobs (
    thread_id TEXT NOT NULL REFERENCES threads (thread_id) ON DELETE CASCADE,
    hash      TEXT NOT NULL,
    data      TEXT NOT NULL,
    PRIMARY KEY (thread_id, hash)
);
ALTER TABLE thread_checkpoints ADD COLUMN message_refs TEXT;

-- Bytes a thread keeps (checkpoints, their messages, its runs' events), for per-person
-- storage quotas; counted from what is there now.
ALTER TABLE threads ADD COLUMN stored_bytes INTEGER NOT NULL DEFAULT 0;
UPDATE threads SET stored_bytes =
    COALESCE((SELECT SUM(LENGTH(CAST(c.state AS BLOB)) + COALESCE(LENGTH(CAST(c.metadata AS BLOB)), 0))
              FROM thread_checkpoints c WHERE c.thread_id = threads.thread_id), 0)
  + COALESCE((SELECT SUM(LENGTH(CAST(e.data AS BLOB)))
              FROM run_events e JOIN runs r ON r.run_id = e.run_id
              WHERE r.thread_id = threads.thread_id), 0);

-- A stateless run's thread, deleted when its run has ended; kept durable so a crash cannot
-- leave it behind (found and deleted at start and by a periodic sweep).
ALTER TABLE threads ADD COLUMN temporary INTEGER NOT NULL DEFAULT 0;
CREATE INDEX threads_temporary ON threads (created_at) WHERE temporary = 1;
