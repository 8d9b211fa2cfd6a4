-- Store a project's signing secrets re-sealed under the current key; what
-- they hold does not change, nor how long the previous one signs.
-- Params: $1 project_id, $2 sealed secret, $3 sealed previous secret or null.
-- Returns the number of rows changed (0 or 1).
UPDATE signing_secrets SET secret = $2, previous_secret = $3
WHERE project_id = $1::uuid
