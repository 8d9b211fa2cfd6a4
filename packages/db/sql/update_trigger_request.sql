-- Replace a pending one-shot's request and time (an edit by ID or key).
-- A trigger with a planned retry (retrying, or skipped after an attempt)
-- keeps its time: only what its next attempt sends changes, and the retry
-- still goes out (docs/api/schedule.md). Its status says whether the time
-- sent was past: skipped if so, else retrying.
-- Params: $1 id, $2 custom_key, $3 status for a non-retrying trigger,
-- $4 title, $5 url, $6 method, $7 headers, $8 body, $9 tags, $10 source,
-- $11 scheduled_at, $12 project id (a row of another project is never
-- touched). Returns the stored status and time.
UPDATE triggers SET
  custom_key   = $2,
  status       = CASE WHEN status = 'retrying' OR (status = 'skipped' AND attempts > 0)
                      THEN (CASE WHEN $3::trigger_status = 'skipped' THEN 'skipped' ELSE 'retrying' END)::trigger_status
                      ELSE $3::trigger_status END,
  title        = $4,
  url          = $5,
  method       = $6,
  headers      = $7::jsonb,
  body         = $8,
  tags         = $9::text[],
  source       = $10::request_source,
  scheduled_at = CASE WHEN status = 'retrying' OR (status = 'skipped' AND attempts > 0) THEN scheduled_at ELSE $11 END,
  updated_at   = clock_timestamp()
WHERE id = $1::uuid AND project_id = $12::uuid AND status IN ('registered', 'skipped', 'retrying')
  AND (status <> 'skipped' OR updated_at >= (SELECT coalesce(max(cutoff), '-infinity') FROM retention_state))
RETURNING status::text AS status, scheduled_at AS "scheduledAt"
