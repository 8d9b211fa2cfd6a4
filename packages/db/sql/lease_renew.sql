-- Extend the scheduler lease of epoch $1, only while it is unexpired: a
-- holder that was frozen past its expiry has lost it, even when nobody took
-- it over, and must take it again (a new epoch).
-- Params: $1 epoch (bigint), $2 lease length in ms.
-- Returns one row when extended, none when the lease is lost.
UPDATE scheduler_lease
SET expires_at = clock_timestamp() + $2 * interval '1 millisecond'
WHERE id = 1 AND epoch = $1::bigint AND expires_at > clock_timestamp()
RETURNING epoch::text AS epoch
