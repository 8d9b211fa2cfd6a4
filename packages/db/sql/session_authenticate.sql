-- Resolve a session cookie to its user and project, and slide the session's
-- idle expiry. The expiry moves at most once per $4 seconds, so a burst of
-- dashboard requests costs one write, not one per request, and it never
-- passes created_at + $3 (the absolute lifetime).
-- Params: $1 token_hash, $2 idle lifetime (s), $3 absolute lifetime (s),
-- $4 minimum seconds between two updates of last_seen_at.
-- Returns {sessionId, userId, projectId} for a live session, else no row.
WITH s AS (
  SELECT s.id, s.user_id, s.created_at, s.last_seen_at, u.project_id
  FROM sessions s
  JOIN users u ON u.id = s.user_id
  WHERE s.token_hash = $1 AND s.expires_at > clock_timestamp()
), touched AS (
  UPDATE sessions SET
    last_seen_at = clock_timestamp(),
    expires_at = LEAST(clock_timestamp() + make_interval(secs => $2::int),
                       sessions.created_at + make_interval(secs => $3::int))
  WHERE sessions.id IN (
    SELECT id FROM s WHERE last_seen_at <= clock_timestamp() - make_interval(secs => $4::int)
  )
)
SELECT id::text AS "sessionId", user_id::text AS "userId", project_id::text AS "projectId"
FROM s
