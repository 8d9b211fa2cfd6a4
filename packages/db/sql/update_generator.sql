-- Replace an active recurring trigger's definition.
-- Params: $1 id, $2 custom_key, $3 title, $4 cron_expr, $5 tz, $6 url,
-- $7 method, $8 headers, $9 body, $10 tags, $11 source, $12 project id (a
-- row of another project is never touched). A new schedule (cron
-- expression or time zone) forgets the runs skipped under the old one.
-- Returns the id.
UPDATE generators SET
  skip_through = CASE WHEN cron_expr = $4 AND tz = $5 THEN skip_through END,
  custom_key = $2, title = $3, cron_expr = $4, tz = $5, url = $6, method = $7,
  headers = $8::jsonb, body = $9, tags = $10::text[], source = $11::request_source,
  updated_at = clock_timestamp()
WHERE id = $1::uuid AND project_id = $12::uuid AND status = 'active'
RETURNING id
