-- Kept in step with migrations/sqlite/0004_instances.sql: on PostgreSQL, 0001 created
-- these tables.
SELECT 1;
