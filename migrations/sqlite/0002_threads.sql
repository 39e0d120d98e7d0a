-- Conversation threads. JSON columns hold objects; timestamps are RFC 3339 UTC with
-- microseconds so text order is time order.
CREATE TABLE threads (
    thread_id  TEXT PRIMARY KEY NOT NULL,
    owner      TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    metadata   TEXT NOT NULL DEFAULT '{}',
    status     TEXT NOT NULL DEFAULT 'idle',
    state      TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX threads_owner_created ON threads (owner, created_at DESC);
CREATE INDEX threads_owner_updated ON threads (owner, updated_at DESC);
