-- The recurring triggers a /declare call diffs: a project's active ones
-- carrying the tag, locked (after their instances, as the scheduler does).
-- Params: $1 project_id, $2 tag.
-- Returns one row per recurring trigger, oldest first.
SELECT g.id::text AS id, g.custom_key AS "customKey", g.cron_expr AS "cronExpr", g.tz, g.title, g.url,
       g.method, g.headers, encode(sha256(g.body), 'hex') AS "bodyHash", g.tags, g.created_at AS "createdAt",
       g.skip_through AS "skipThrough"
FROM generators g
WHERE g.project_id = $1::uuid AND g.status = 'active' AND g.tags @> ARRAY[$2::text]
ORDER BY g.created_at, g.id
FOR UPDATE
