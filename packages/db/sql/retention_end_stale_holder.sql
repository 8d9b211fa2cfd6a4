-- Ends the session that holds the retention lock when it has sat idle for
-- $2 seconds (a minute): the pass that took it no longer runs (its process frozen, or
-- cut off without its connection closing), since a running pass sends a
-- statement at least every few seconds. Its pass stopped where it was; the
-- next one finishes what it left (retention.ts, removeLeftovers).
-- Params: $1 the lock key (RETENTION_LOCK_KEY), $2 seconds idle. Returns ended: one row per session ended.
SELECT pg_terminate_backend(a.pid) AS ended
FROM pg_locks l
JOIN pg_stat_activity a ON a.pid = l.pid
WHERE l.locktype = 'advisory' AND l.granted
  -- advisory locks are per database: this database's lock only
  AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
  AND l.classid = ($1::bigint >> 32)::oid AND l.objid = ($1::bigint & 4294967295)::oid AND l.objsubid = 1
  AND a.application_name = 'ttr-retention'
  -- idle, or idle inside a transaction (a pass stopped between its detach
  -- statements, holding the tables too)
  AND a.state IN ('idle', 'idle in transaction', 'idle in transaction (aborted)')
  AND a.state_change < now() - make_interval(secs => $2::float8)
