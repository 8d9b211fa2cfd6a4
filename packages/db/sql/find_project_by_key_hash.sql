-- Authenticate an API key by its hash.
-- Params: $1 key_hash (text). Returns the key's project, or no row for an
-- unknown or revoked key.
SELECT p.id, p.name, p.monthly_quota AS "monthlyQuota"
FROM api_keys k
JOIN projects p ON p.id = k.project_id
WHERE k.key_hash = $1 AND k.revoked_at IS NULL
