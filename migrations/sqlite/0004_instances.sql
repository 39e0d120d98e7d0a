-- Live server instances and their heartbeats (replicas on PostgreSQL use them to take over
-- the runs of a replica that died; kept here too so both engines have one schema).
CREATE TABLE instances (
    instance_id  TEXT PRIMARY KEY NOT NULL,
    heartbeat_at TEXT NOT NULL
);
