-- Replace registered or skipped one-shots in place with their items
-- (docs/api/declare-and-bulk.md: "updated in place"; an update replaces the whole trigger).
-- Rows come as one JSON array; body is base64, headers [name, value] pairs.
-- Each row is named by id and day, so only those days' partitions are read.
-- Params: $1 project_id, $2 rows (jsonb: id, partDay, status, scheduledAt,
-- title, url, method, headers, body, tags), $3 their days (date[], any
-- order). Returns the ids updated.
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
FROM jsonb_to_recordset($2::jsonb) AS x(id uuid, "partDay" date, status text, "scheduledAt" timestamptz, title text, url text,
                                        method text, headers jsonb, body text, tags text[])
WHERE t.part_day = ANY ($3::date[]) AND t.id = x.id AND t.part_day = x."partDay"
  AND t.project_id = $1::uuid AND t.status IN ('registered', 'skipped')
  AND (t.status <> 'skipped' OR t.updated_at >= (SELECT coalesce(max(cutoff), '-infinity') FROM retention_state))
RETURNING t.id::text AS id
