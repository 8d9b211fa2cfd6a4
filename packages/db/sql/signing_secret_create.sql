-- Give a project its first signing secret (sealed by the caller). A project
-- that already has one keeps it: two racing creations end with one secret.
-- Params: $1 project_id, $2 sealed secret. Returns the project id when this
-- call created the secret, no row otherwise.
INSERT INTO signing_secrets (project_id, secret, created_at)
VALUES ($1::uuid, $2, clock_timestamp())
ON CONFLICT (project_id) DO NOTHING
RETURNING project_id::text AS "projectId"
