-- Start a planned attempt: execution planned → started, trigger queued or
-- retrying → running (SPEC §3). The timeout is fixed here from the tag
-- policies in force (SPEC §4 Timeout), and so are the retry settings the
-- executor will apply if this attempt fails (SPEC §4 Retries 6).
-- Params: $1 execution id, $2 default timeout seconds, $3 reap grace seconds.
-- Returns the request to send, or no row when the attempt may not start
-- (already started elsewhere, or its trigger was cancelled meanwhile).
WITH target AS (
  SELECT e.id, e.trigger_id, t.project_id, t.tags
  FROM executions e JOIN triggers t ON t.id = e.trigger_id
  WHERE e.id = $1::uuid AND e.status = 'planned' AND t.status IN ('queued', 'retrying')
  FOR UPDATE OF e, t
), policies AS (
  SELECT p.* FROM tag_policies p JOIN target ON p.project_id = target.project_id AND p.tag = ANY (target.tags)
), limit_s AS (
  SELECT COALESCE(min(request_timeout_seconds), $2::int) AS seconds FROM policies
), started AS (
  UPDATE executions e
  SET status = 'started', started_at = clock_timestamp(),
      timeout_seconds = (SELECT seconds FROM limit_s),
      reap_after = clock_timestamp() + make_interval(secs => (SELECT seconds FROM limit_s) + $3::int)
  FROM target WHERE e.id = target.id
  RETURNING e.id, e.trigger_id, e.attempt_number, e.triggered_by, e.started_at, e.timeout_seconds
), running AS (
  UPDATE triggers t SET status = 'running', updated_at = clock_timestamp()
  FROM started WHERE t.id = started.trigger_id
  RETURNING t.id, t.project_id, t.url, t.method, t.headers, t.body, t.source, t.scheduled_at, t.tags
)
SELECT s.id::text AS "executionId", r.id::text AS "triggerId", r.project_id::text AS "projectId",
       s.attempt_number AS "attemptNumber", s.triggered_by::text AS "triggeredBy",
       s.started_at AS "startedAt", s.timeout_seconds AS "timeoutSeconds",
       r.url, r.method, r.headers, r.body, r.source::text AS source, r.scheduled_at AS "scheduledAt", r.tags,
       (SELECT COALESCE(json_agg(json_build_object(
           'tag', p.tag,
           'retryStrategy', p.retry_strategy, 'retryInitialDelaySeconds', p.retry_initial_delay_seconds,
           'retryMaxDelaySeconds', p.retry_max_delay_seconds, 'retryMaxAttempts', p.retry_max_attempts,
           'retryJitter', p.retry_jitter, 'retryOn', p.retry_on)), '[]'::json)
        FROM policies p) AS policies
FROM started s JOIN running r ON r.id = s.trigger_id
