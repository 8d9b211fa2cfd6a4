-- Create an active recurring trigger.
-- Params: $1 project_id, $2 custom_key, $3 title, $4 cron_expr, $5 tz,
-- $6 url, $7 method, $8 headers, $9 body, $10 tags, $11 source.
-- Returns the new id.
INSERT INTO generators (id, project_id, custom_key, status, title, cron_expr, tz, url, method,
                        headers, body, tags, source, created_at, updated_at)
VALUES (ttr_uuidv7(), $1::uuid, $2, 'active', $3, $4, $5, $6, $7,
        $8::jsonb, $9, $10::text[], $11::request_source, clock_timestamp(), clock_timestamp())
RETURNING id
