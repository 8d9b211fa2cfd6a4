-- Open a dashboard session for a user, and drop that user's expired ones so
-- the table does not grow with every sign-in.
-- Params: $1 user_id, $2 token_hash (SHA-256 hex of the cookie's token),
-- $3 idle lifetime in seconds. Returns the session id.
-- One reading of the clock serves every column, so a session lasts exactly
-- its lifetime (three readings differed by microseconds).
WITH now AS (
  SELECT clock_timestamp() AS t
), purge AS (
  DELETE FROM sessions WHERE user_id = $1::uuid AND expires_at <= (SELECT t FROM now)
)
INSERT INTO sessions (id, user_id, token_hash, created_at, last_seen_at, expires_at)
SELECT gen_random_uuid(), $1::uuid, $2, now.t, now.t, now.t + make_interval(secs => $3::int)
FROM now
RETURNING id::text AS id
