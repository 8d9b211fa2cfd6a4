-- Use one unit of a project's monthly quota (CONTRACT §4).
-- Params: $1 project_id (uuid), $2 month ('YYYY-MM', UTC).
-- Returns {used, quota} after this unit, or no row when the quota is used up.
-- The upsert takes the row lock, so concurrent calls count exactly.
WITH p AS (SELECT monthly_quota FROM projects WHERE id = $1::uuid)
INSERT INTO project_usage AS u (project_id, month, used)
SELECT $1::uuid, $2, 1 FROM p WHERE p.monthly_quota > 0
ON CONFLICT (project_id, month) DO UPDATE
  SET used = u.used + 1
  WHERE u.used < (SELECT monthly_quota FROM p)
RETURNING u.used, (SELECT monthly_quota FROM p) AS quota
