-- Active recurring triggers that have no pending instance: new ones from
-- /declare and /bulk, and any left without one by an interruption.
-- Params: $1 limit.
SELECT g.id::text, g.cron_expr AS "cronExpr", g.tz, g.skip_through AS "skipThrough"
FROM generators g
WHERE g.status = 'active'
  AND NOT EXISTS (SELECT 1 FROM triggers t WHERE t.generator_id = g.id AND t.status = 'registered')
LIMIT $1
