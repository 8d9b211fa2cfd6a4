-- A project's signing secrets as stored (sealed): the current one, and the
-- one the last rotation replaced while it still signs (docs/delivery-extras.md).
-- Params: $1 project_id. Returns one row, or none when the project has no
-- signing secret.
SELECT secret,
       CASE WHEN previous_until > clock_timestamp() THEN previous_secret END AS "previousSecret"
FROM signing_secrets
WHERE project_id = $1::uuid
