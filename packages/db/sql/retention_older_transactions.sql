-- Transactions of this database that began before a moment and are still
-- open: a retention pass waits for them after announcing its cutoff, so no
-- statement that began before the announcement can still revive a row.
-- Only client sessions can: an autovacuum worker (often busy on the day
-- tables, which vacuum early) or another background process never does, and
-- waiting for one would defer every old day.
-- Params: $1 moment (timestamptz). Returns their count.
SELECT count(*)::int AS open
FROM pg_stat_activity
WHERE datname = current_database() AND pid <> pg_backend_pid() AND state <> 'idle' AND xact_start < $1
  AND backend_type = 'client backend'
