-- Replace registered or skipped one-shots in place with their items (SPEC §4
-- /declare diff rules: "updated in place"; item rule 3: the whole trigger).
-- Rows come as one JSON array; body is base64, headers [name, value] pairs.
-- Params: $1 project_id, $2 rows (jsonb: id, status, scheduledAt, title,
-- url, method, headers, body, tags). Returns the ids updated.
UPDATE triggers t SET
  status       = x.status::trigger_status,
  scheduled_at = x."scheduledAt",
  title        = x.title,
  url          = x.url,
  method       = x.method,
  headers      = x.headers,
  body         = decode(x.body, 'base64'),
  tags         = x.tags,
  source       = 'item',
  updated_at   = clock_timestamp()
FROM jsonb_to_recordset($2::jsonb) AS x(id uuid, status text, "scheduledAt" timestamptz, title text, url text,
                                        method text, headers jsonb, body text, tags text[])
WHERE t.id = x.id AND t.project_id = $1::uuid AND t.status IN ('registered', 'skipped')
  AND (t.status <> 'skipped' OR t.updated_at >= (SELECT coalesce(max(cutoff), '-infinity') FROM retention_state))
RETURNING t.id::text AS id
