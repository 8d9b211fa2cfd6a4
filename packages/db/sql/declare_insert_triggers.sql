-- Create one-shots from /declare and /bulk items (source 'item'), in the
-- order given, with the ids chosen by the caller.
-- Params: $1 project_id, $2 rows (jsonb: id, customKey, status, scheduledAt,
-- title, url, method, headers, body (base64), tags). Returns the ids created.
INSERT INTO triggers (id, project_id, generator_id, custom_key, status, title, url, method,
                      headers, body, tags, source, scheduled_at, created_at, updated_at)
SELECT x.id, $1::uuid, NULL::uuid, x."customKey", x.status::trigger_status, x.title, x.url, x.method,
       x.headers, decode(x.body, 'base64'), x.tags, 'item'::request_source, x."scheduledAt", clock_timestamp(), clock_timestamp()
FROM ROWS FROM (jsonb_to_recordset($2::jsonb) AS (id uuid, "customKey" text, status text, "scheduledAt" timestamptz, title text, url text, method text, headers jsonb, body text, tags text[]))
     WITH ORDINALITY AS x(id, "customKey", status, "scheduledAt", title, url, method, headers, body, tags, n)
ORDER BY x.n
RETURNING id::text AS id
