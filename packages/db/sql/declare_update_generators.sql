-- Replace active recurring triggers in place with their items
-- (docs/api/declare-and-bulk.md: "recurring, differs"). Rows come as one JSON array;
-- body is base64, headers [name, value] pairs.
-- Params: $1 project_id, $2 rows (jsonb: id, cronExpr, tz, title, url,
-- method, headers, body, tags). A new schedule (cron expression or time
-- zone) forgets the runs skipped under the old one. Returns the ids updated.
UPDATE generators g SET
  skip_through = CASE WHEN g.cron_expr = x."cronExpr" AND g.tz = x.tz THEN g.skip_through END,
  cron_expr  = x."cronExpr",
  tz         = x.tz,
  title      = x.title,
  url        = x.url,
  method     = x.method,
  headers    = x.headers,
  body       = decode(x.body, 'base64'),
  tags       = x.tags,
  source     = 'item',
  updated_at = clock_timestamp()
FROM jsonb_to_recordset($2::jsonb) AS x(id uuid, "cronExpr" text, tz text, title text, url text, method text,
                                        headers jsonb, body text, tags text[])
WHERE g.id = x.id AND g.project_id = $1::uuid AND g.status = 'active'
RETURNING g.id::text AS id
