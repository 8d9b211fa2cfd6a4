-- Take the scheduler lease for `holder`, if it is free: expired, or held
-- from a connection that no longer exists (its holder died: no need to wait
-- for the expiry). Run on the connection that will renew it. A takeover
-- starts a new epoch.
-- Params: $1 holder (a replica's id), $2 lease length in ms.
-- Returns epoch (text) when taken, no row otherwise.
UPDATE scheduler_lease l
SET holder = $1, epoch = l.epoch + 1, expires_at = clock_timestamp() + $2 * interval '1 millisecond', backend_pid = pg_backend_pid()
WHERE l.id = 1
  AND (l.expires_at <= clock_timestamp() OR NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.pid = l.backend_pid))
RETURNING l.epoch::text AS epoch
