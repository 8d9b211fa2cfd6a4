-- A project with the quota units it used in one month (docs/quota.md, docs/api/dashboard-api.md).
-- Params: $1 project_id, $2 month ('YYYY-MM', UTC).
-- Returns {id, name, monthlyQuota, usedThisMonth}; 0 used when the month has
-- no usage row yet.
SELECT p.id::text AS id, p.name, p.monthly_quota AS "monthlyQuota",
       COALESCE(u.used, 0)::int AS "usedThisMonth"
FROM projects p
LEFT JOIN project_usage u ON u.project_id = p.id AND u.month = $2
WHERE p.id = $1::uuid
