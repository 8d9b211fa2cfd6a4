-- The active recurring trigger holding a custom key, locked.
-- Params: $1 project_id, $2 custom_key.
SELECT id, status::text AS status, custom_key AS "customKey", cron_expr AS "cronExpr", tz,
       skip_through AS "skipThrough"
FROM generators
WHERE project_id = $1::uuid AND custom_key = $2 AND status = 'active'
ORDER BY created_at DESC
LIMIT 1
FOR UPDATE
