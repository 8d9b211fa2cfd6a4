-- The newest one-shot with a custom key in any status, to explain why a
-- /cancel by key cannot act (SPEC §7 /cancel checks).
-- Params: $1 project_id, $2 custom_key.
SELECT id, status::text AS status
FROM triggers
WHERE project_id = $1::uuid AND custom_key = $2 AND generator_id IS NULL
ORDER BY created_at DESC
LIMIT 1
