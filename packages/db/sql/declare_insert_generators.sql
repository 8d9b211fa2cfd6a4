-- Create active recurring triggers from /declare and /bulk items (source
-- 'item'), in the order given, with the ids chosen by the caller. Their
-- first instance is created by create_next_instances in the same call.
-- Params: $1 project_id, $2 rows (jsonb: id, customKey, cronExpr, tz,
-- title, url, method, headers, body (base64), tags). Returns the ids created.
INSERT INTO generators (id, project_id, custom_key, status, title, cron_expr, tz, url, method,
                        headers, body, tags, source, created_at, updated_at)
SELECT x.id, $1::uuid, x."customKey", 'active'::generator_status, x.title, x."cronExpr", x.tz, x.url, x.method,
       x.headers, decode(x.body, 'base64'), x.tags, 'item'::request_source, clock_timestamp(), clock_timestamp()
FROM ROWS FROM (jsonb_to_recordset($2::jsonb) AS (id uuid, "customKey" text, "cronExpr" text, tz text, title text, url text, method text, headers jsonb, body text, tags text[]))
     WITH ORDINALITY AS x(id, "customKey", "cronExpr", tz, title, url, method, headers, body, tags, n)
ORDER BY x.n
RETURNING id::text AS id
