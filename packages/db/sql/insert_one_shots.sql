-- Create new one-shot triggers from /schedule calls that arrived together
-- (no key, no ID: nothing to look up first), one row per call.
-- Params, one array element per row: $1 ids (uuid[], chosen by the caller),
-- $2 project_id (uuid[]), $3 status (text[]), $4 title, $5 url, $6 method
-- (text[]), $7 headers (jsonb text[]), $8 body (bytea[]), $9 tags (each a
-- JSON array, text[]), $10 scheduled_at (timestamptz[]).
INSERT INTO triggers (id, project_id, generator_id, custom_key, status, title, url, method,
                      headers, body, tags, source, scheduled_at, created_at, updated_at)
SELECT x.id, x.project_id, NULL, NULL, x.status::trigger_status, x.title, x.url, x.method,
       x.headers::jsonb, x.body, ARRAY(SELECT jsonb_array_elements_text(x.tags::jsonb)),
       'schedule'::request_source, x.scheduled_at, clock_timestamp(), clock_timestamp()
FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[],
            $7::text[], $8::bytea[], $9::text[], $10::timestamptz[])
     AS x(id, project_id, status, title, url, method, headers, body, tags, scheduled_at)
