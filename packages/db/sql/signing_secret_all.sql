-- Every stored signing secret (sealed), for re-sealing them under a new
-- TTR_SECRET_KEY (`ttr migrate`, docs/delivery-extras.md). Locked until the
-- transaction ends so a rotation meanwhile waits rather than being undone.
-- Params: none. Returns one row per project with a signing secret.
SELECT project_id::text AS "projectId", secret, previous_secret AS "previousSecret"
FROM signing_secrets
ORDER BY project_id
FOR UPDATE
