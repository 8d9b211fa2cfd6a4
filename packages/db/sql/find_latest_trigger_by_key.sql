-- The one-shot with a custom key that explains why a /cancel by key cannot
-- act (docs/api/cancel.md): one still in flight (queued, running) first,
-- as it holds the key whatever was scheduled with it since; else the newest
-- in any status.
-- Params: $1 project_id, $2 custom_key.
SELECT id, status::text AS status
FROM triggers
WHERE project_id = $1::uuid AND custom_key = $2 AND generator_id IS NULL
ORDER BY (status IN ('queued', 'running')) DESC, created_at DESC
LIMIT 1
