-- Kept in step with migrations/sqlite/0003_runs.sql: on PostgreSQL, 0001 created
-- these tables.
SELECT 1;
