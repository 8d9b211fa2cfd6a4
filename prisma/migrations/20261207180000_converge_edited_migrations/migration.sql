-- Brings databases that applied an earlier text of 20261126100000_overview_indexes
-- to the schema every other database has: that text also made an index of
-- first attempts by start time, which nothing reads and every fire wrote to.
-- (The earlier text of 20261126110000_fewer_index_writes made
-- executions_project_completed_idx partial; 20261126110001_attempt_minutes
-- drops that index whichever way it was made.) A no-op elsewhere.
DROP INDEX IF EXISTS "executions_first_started_idx";
