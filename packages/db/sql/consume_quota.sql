-- Use units of a project's monthly quota (docs/quota.md), all or none: the api
-- asks for the units of the /schedule calls that arrived together.
-- Params: $1 project_id (uuid), $2 month ('YYYY-MM', UTC), $3 units (> 0).
-- Returns {used, quota} after these units, or no row when fewer than $3 are
-- left (the caller then asks one unit at a time). The upsert takes the row
-- lock, so concurrent calls count exactly.
WITH p AS (SELECT monthly_quota FROM projects WHERE id = $1::uuid)
INSERT INTO project_usage AS u (project_id, month, used)
SELECT $1::uuid, $2, $3::int FROM p WHERE p.monthly_quota >= $3::int
ON CONFLICT (project_id, month) DO UPDATE
  SET used = u.used + $3::int
  WHERE u.used + $3::int <= (SELECT monthly_quota FROM p)
RETURNING u.used, (SELECT monthly_quota FROM p) AS quota
