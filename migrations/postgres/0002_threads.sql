-- Kept in step with migrations/sqlite/0002_threads.sql: on PostgreSQL, 0001 created
-- these tables.
SELECT 1;
