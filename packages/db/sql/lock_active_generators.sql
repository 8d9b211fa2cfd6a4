-- Active recurring triggers among the given ones, locked so that an edit
-- through /schedule or /declare and the next-instance creation serialize.
-- Params: $1 generator ids (uuid[]).
SELECT id::text, cron_expr AS "cronExpr", tz, skip_through AS "skipThrough"
FROM generators
WHERE id = ANY($1::uuid[]) AND status = 'active'
ORDER BY id
FOR UPDATE
