-- Give back quota units (docs/quota.md) of /schedule calls that took theirs
-- and then stored nothing: PostgreSQL could not be reached, or no connection
-- of the pool came free in time, before their write was sent.
-- Params: $1 project_id (uuid), $2 month ('YYYY-MM', UTC), $3 units (> 0).
UPDATE project_usage
SET used = greatest(used - $3::int, 0)
WHERE project_id = $1::uuid AND month = $2
