-- Rotate a project's signing secret: the new one (sealed by the caller)
-- becomes current, the current one becomes the previous and keeps signing
-- for $3 hours or until the next rotation, whichever comes first. A secret
-- replaced before that is gone.
-- Params: $1 project_id, $2 sealed new secret, $3 hours the previous one
-- keeps signing. Returns the previous (sealed) secret, or no row when the
-- project has no signing secret yet.
UPDATE signing_secrets s
SET previous_secret = s.secret, previous_until = clock_timestamp() + make_interval(hours => $3::int),
    secret = $2, rotated_at = clock_timestamp()
FROM signing_secrets old
WHERE s.project_id = $1::uuid AND old.project_id = s.project_id
RETURNING old.secret AS "previousSecret"
