-- Fencing: at the start of each transaction of the active scheduler, check
-- that the lease of epoch $1 is still unexpired, and keep it key-share
-- locked until the transaction ends. A takeover changes `epoch`, a unique
-- column, which needs a lock that waits for this one: no takeover commits
-- meanwhile. Renewals change only `expires_at` and do not wait.
-- Params: $1 epoch (bigint). Returns one row while the lease is held.
SELECT epoch::text AS epoch FROM scheduler_lease
WHERE id = 1 AND epoch = $1::bigint AND expires_at > clock_timestamp()
FOR KEY SHARE
