-- Kept in step with migrations/sqlite/0014_checkpoint_blobs.sql: checkpoint messages stored
-- once per thread by content hash, and the bytes each thread keeps.
CREATE TABLE checkpoint_blobs (
    thread_id TEXT NOT NULL REFERENCES threads (thread_id) ON DELETE CASCADE,
    hash      TEXT NOT NULL,
    data      TEXT NOT NULL,
    PRIMARY KEY (thread_id, hash)
);
ALTER TABLE thread_checkpoints ADD COLUMN message_refs JSONB;

ALTER TABLE threads ADD COLUMN stored_bytes BIGINT NOT NULL DEFAULT 0;
UPDATE threads SET stored_bytes =
    COALESCE((SELECT SUM(OCTET_LENGTH(c.state::text) + COALESCE(OCTET_LENGTH(c.metadata::text), 0))
              FROM thread_checkpoints c WHERE c.thread_id = threads.thread_id), 0)
  + COALESCE((SELECT SUM(OCTET_LENGTH(e.data))
              FROM run_events e JOIN runs r ON r.run_id = e.run_id
              WHERE r.thread_id = threads.thread_id), 0);

ALTER TABLE threads ADD COLUMN temporary BOOLEAN NOT NULL DEFAULT FALSE;
CREATE INDEX threads_temporary ON threads (created_at) WHERE temporary;
