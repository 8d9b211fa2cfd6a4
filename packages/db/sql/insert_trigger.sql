-- Create a one-shot trigger or an instance.
-- Params: $1 project_id, $2 generator_id (null for one-shots), $3 custom_key,
-- $4 status, $5 title, $6 url, $7 method, $8 headers (jsonb text),
-- $9 body (bytea), $10 tags (text[]), $11 source, $12 scheduled_at.
-- Returns the new id.
INSERT INTO triggers (id, project_id, generator_id, custom_key, status, title, url, method,
                      headers, body, tags, source, scheduled_at, created_at, updated_at)
VALUES (ttr_uuidv7(), $1::uuid, $2::uuid, $3, $4::trigger_status, $5, $6, $7,
        $8::jsonb, $9, $10::text[], $11::request_source, $12, clock_timestamp(), clock_timestamp())
RETURNING id
