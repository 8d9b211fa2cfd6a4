-- Transactions of this database that began before a moment and are still
-- open: a retention pass waits for them after announcing its cutoff, so no
-- statement that began before the announcement can still revive a row.
-- Params: $1 moment (timestamptz). Returns their count.
SELECT count(*)::int AS open
FROM pg_stat_activity
WHERE datname = current_database() AND pid <> pg_backend_pid() AND state <> 'idle' AND xact_start < $1
