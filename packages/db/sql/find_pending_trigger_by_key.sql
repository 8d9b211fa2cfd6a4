-- The newest pending one-shot (registered, skipped or retrying) holding a
-- custom key in a project, locked for an edit. Queued and later ones are
-- never matched (docs/api/schedule.md).
-- Params: $1 project_id, $2 custom_key.
SELECT id, status::text AS status, generator_id AS "generatorId"
FROM triggers
WHERE project_id = $1::uuid AND custom_key = $2
  AND status IN ('registered', 'skipped', 'retrying')
  -- a skipped one past retention no longer holds its key (retention_set_cutoff.sql)
  AND (status <> 'skipped' OR updated_at >= (SELECT coalesce(max(cutoff), '-infinity') FROM retention_state))
ORDER BY created_at DESC
LIMIT 1
FOR UPDATE
