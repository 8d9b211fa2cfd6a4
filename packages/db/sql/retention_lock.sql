-- Take the retention lock (a session advisory lock), without waiting.
-- Params: $1 the lock key (RETENTION_LOCK_KEY). Returns ok: whether it was taken.
SELECT pg_try_advisory_lock($1::bigint) AS ok
