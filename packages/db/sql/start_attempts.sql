-- Start planned attempts, many in one statement (the executor batches the
-- jobs it takes at about the same time): execution planned → started,
-- trigger queued or retrying → running (docs/concepts.md). Each attempt's timeout is
-- fixed here from its tags' policies (docs/api/tag-policies.md, timeout), and so are the retry
-- settings applied if it fails (docs/api/tag-policies.md, retries) and the delivery extras
-- (signing, Retry-After, dead-letter notification) its policies ask for.
-- Params: $1 execution ids (uuid[]), $2 the day they are stored under
-- (date: only that day's partitions are read, also by a prepared plan, so
-- attempts of several days take one statement per day), $3 default
-- timeout seconds, $4 reap grace seconds.
-- Returns one row per attempt that started; an id without a row may not
-- start (already started elsewhere, or its trigger was cancelled meanwhile).
-- Rows are locked in id order so that two batches never wait on each other
-- in a cycle. Both tables are read through their primary key by a list of
-- ids (the triggers' from `planned`): a kept plan then never turns into a
-- scan of the day's rows, whatever the statistics were when it was made.
WITH planned AS (
  SELECT e.trigger_id FROM executions e
  WHERE e.id = ANY ($1::uuid[]) AND e.part_day = $2::date AND e.status = 'planned'
), target AS (
  SELECT e.id, e.trigger_id, t.project_id, t.tags
  FROM executions e JOIN triggers t ON t.id = e.trigger_id
  WHERE e.id = ANY ($1::uuid[]) AND e.part_day = $2::date AND e.status = 'planned'
    AND t.id = ANY (ARRAY(SELECT trigger_id FROM planned)) AND t.part_day = $2::date AND t.status IN ('queued', 'retrying')
  ORDER BY e.id
  FOR UPDATE OF e, t
), policy AS (
  SELECT target.id AS execution_id,
         min(p.request_timeout_seconds) AS timeout_seconds,
         json_agg(json_build_object(
           'tag', p.tag,
           'retryStrategy', p.retry_strategy, 'retryInitialDelaySeconds', p.retry_initial_delay_seconds,
           'retryMaxDelaySeconds', p.retry_max_delay_seconds, 'retryMaxAttempts', p.retry_max_attempts,
           'retryJitter', p.retry_jitter, 'retryOn', p.retry_on,
           'signing', p.signing, 'honorRetryAfter', p.honor_retry_after, 'notifyUrl', p.notify_url)) AS policies
  FROM target JOIN tag_policies p ON p.project_id = target.project_id AND p.tag = ANY (target.tags)
  GROUP BY target.id
), started AS (
  UPDATE executions e
  SET status = 'started', started_at = clock_timestamp(),
      timeout_seconds = COALESCE(policy.timeout_seconds, $3::int),
      reap_after = clock_timestamp() + make_interval(secs => COALESCE(policy.timeout_seconds, $3::int) + $4::int)
  FROM target LEFT JOIN policy ON policy.execution_id = target.id
  WHERE e.id = ANY ($1::uuid[]) AND e.id = target.id AND e.part_day = $2::date
  RETURNING e.id, e.trigger_id, e.part_day, e.attempt_number, e.triggered_by, e.started_at, e.timeout_seconds,
            COALESCE(policy.policies, '[]'::json) AS policies
), running AS (
  UPDATE triggers t SET status = 'running', updated_at = clock_timestamp()
  FROM started
  WHERE t.id = ANY (ARRAY(SELECT trigger_id FROM started)) AND t.id = started.trigger_id AND t.part_day = $2::date
  RETURNING t.id, t.project_id, t.url, t.method, t.headers, t.body, t.source, t.scheduled_at, t.tags
)
SELECT s.id::text AS "executionId", s.part_day::text AS "partDay", r.id::text AS "triggerId", r.project_id::text AS "projectId",
       s.attempt_number AS "attemptNumber", s.triggered_by::text AS "triggeredBy",
       s.started_at AS "startedAt", s.timeout_seconds AS "timeoutSeconds",
       r.url, r.method, r.headers, r.body, r.source::text AS source, r.scheduled_at AS "scheduledAt", r.tags,
       s.policies
FROM started s JOIN running r ON r.id = s.trigger_id
