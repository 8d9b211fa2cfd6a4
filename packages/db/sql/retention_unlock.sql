-- Release the retention lock taken by retention_lock.sql.
-- Params: $1 the lock key.
SELECT pg_advisory_unlock($1::bigint) AS released
