-- The active recurring triggers of a project holding any of the given custom
-- keys, for /bulk upserts. Locked in creation order.
-- Params: $1 project_id, $2 custom keys (text[]).
-- Returns rows in the shape of declare_candidate_generators.
SELECT g.id::text AS id, g.custom_key AS "customKey", g.cron_expr AS "cronExpr", g.tz, g.title, g.url,
       g.method, g.headers, encode(sha256(g.body), 'hex') AS "bodyHash", g.tags, g.created_at AS "createdAt",
       g.skip_through AS "skipThrough"
FROM generators g
WHERE g.project_id = $1::uuid AND g.custom_key = ANY($2::text[]) AND g.status = 'active'
ORDER BY g.created_at, g.id
FOR UPDATE
