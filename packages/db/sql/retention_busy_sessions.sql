-- How many other sessions of this database are running a statement right
-- now (retention waits for a moment with none before it detaches old days).
-- Returns {busy}.
SELECT count(*)::int AS busy FROM pg_stat_activity
WHERE datname = current_database() AND pid <> pg_backend_pid()
  AND state = 'active' AND backend_type = 'client backend'
