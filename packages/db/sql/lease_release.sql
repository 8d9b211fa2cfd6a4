-- Give the scheduler lease of epoch $1 up (a replica shutting down), so a
-- standby takes it at its next try instead of waiting for the expiry.
-- Params: $1 epoch (bigint).
UPDATE scheduler_lease SET expires_at = clock_timestamp()
WHERE id = 1 AND epoch = $1::bigint
