-- Open a dashboard session for a user, and drop that user's expired ones so
-- the table does not grow with every sign-in.
-- Params: $1 user_id, $2 token_hash (SHA-256 hex of the cookie's token),
-- $3 idle lifetime in seconds. Returns the session id.
WITH purge AS (
  DELETE FROM sessions WHERE user_id = $1::uuid AND expires_at <= clock_timestamp()
)
INSERT INTO sessions (id, user_id, token_hash, created_at, last_seen_at, expires_at)
VALUES (gen_random_uuid(), $1::uuid, $2, clock_timestamp(), clock_timestamp(),
        clock_timestamp() + make_interval(secs => $3::int))
RETURNING id::text AS id
