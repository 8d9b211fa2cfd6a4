-- A project's triggers and recurring triggers by ID, in the dashboard's
-- Trigger shape (docs/api/dashboard-api.md). IDs of another project match nothing.
-- A recurring trigger's scheduledAt is the time of its pending (registered)
-- instance, of which there is at most one (triggers_one_pending_instance).
-- Params: $1 project_id, $2 ids (uuid[]), $3 the days of the one-shots among
-- them (date[]), or null when unknown: naming the days reads only those day
-- partitions instead of probing every day for each ID.
-- Returns one row per ID found, in no particular order.
SELECT 'job' AS kind, t.id::text AS id, t.status::text AS status, t.custom_key AS "customKey",
       t.title, t.url, t.method, t.headers, t.body, t.tags,
       t.scheduled_at AS "scheduledAt", NULL::text AS "cronExpr", NULL::text AS tz,
       t.generator_id::text AS "generatorId", t.created_at AS "createdAt", t.updated_at AS "updatedAt"
-- Found by ID alone, then kept if the project's (see session_list_executions.sql).
FROM (SELECT * FROM triggers WHERE id = ANY($2::uuid[]) AND ($3::date[] IS NULL OR part_day = ANY($3::date[])) OFFSET 0) t
WHERE t.project_id = $1::uuid
UNION ALL
SELECT 'generator', g.id::text, g.status::text, g.custom_key,
       g.title, g.url, g.method, g.headers, g.body, g.tags,
       (SELECT i.scheduled_at FROM triggers i
         WHERE i.generator_id = g.id AND i.status = 'registered' LIMIT 1),
       g.cron_expr, g.tz,
       NULL, g.created_at, g.updated_at
FROM generators g
WHERE g.project_id = $1::uuid AND g.id = ANY($2::uuid[])
