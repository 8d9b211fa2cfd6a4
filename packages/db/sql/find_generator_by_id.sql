-- A project's recurring trigger by ID, locked.
-- Params: $1 project_id, $2 id.
SELECT id, status::text AS status, custom_key AS "customKey", cron_expr AS "cronExpr", tz,
       skip_through AS "skipThrough"
FROM generators
WHERE project_id = $1::uuid AND id = $2::uuid
FOR UPDATE
