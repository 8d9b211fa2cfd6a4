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
-- The triggers are updated first, each through its primary key, guarded by their status and their attempt count: whatever else
-- changes a trigger's planned attempt (a cancel, another executor given the
-- same job, that attempt ending and the next one being planned) updates the
-- trigger first, so the second of two waits for the first and then finds
-- the trigger no longer queued or retrying, or on a later attempt (every
-- new attempt raises `attempts` and takes it as its number). No row is
-- locked apart from the ones updated, which would cost a lock record in the
-- WAL per row (docs/storage.md, what a fire writes).
-- Each step is driven by the previous one's rows, one index lookup per
-- row: the planned executions find their triggers by primary key, each
-- running trigger its execution and its policies (LATERAL, through
-- tag_policies' unique index), and the answer comes from the executions'
-- update, which returns its trigger's columns too. No step offers the
-- planner a way to read a table apart from the rows before it: PostgreSQL
-- cannot estimate a CTE's rows, and on a day not yet analyzed it ran
-- nested loops that read one step's rows again for each row of the other,
-- 40,000 row pairs for 200 attempts (docs/storage.md).
WITH planned AS (
  SELECT e.trigger_id, e.attempt_number FROM executions e
  WHERE e.id = ANY ($1::uuid[]) AND e.part_day = $2::date AND e.status = 'planned'
  -- the triggers are then updated (locked) in id order, as every statement
  -- that updates several does, so two of them never wait on each other
  ORDER BY e.trigger_id
), running AS (
  UPDATE triggers t SET status = 'running', updated_at = clock_timestamp()
  FROM planned p
  WHERE t.id = p.trigger_id AND t.part_day = $2::date
    AND t.status IN ('queued', 'retrying') AND t.attempts = p.attempt_number
  RETURNING t.id, t.project_id, t.url, t.method, t.headers, t.body, t.source, t.scheduled_at, t.tags
), started AS (
  UPDATE executions e
  SET status = 'started', started_at = clock_timestamp(),
      timeout_seconds = COALESCE(policy.timeout_seconds, $3::int),
      reap_after = clock_timestamp() + make_interval(secs => COALESCE(policy.timeout_seconds, $3::int) + $4::int)
  FROM running r
  CROSS JOIN LATERAL (
    SELECT min(p.request_timeout_seconds) AS timeout_seconds,
           json_agg(json_build_object(
             'tag', p.tag,
             'retryStrategy', p.retry_strategy, 'retryInitialDelaySeconds', p.retry_initial_delay_seconds,
             'retryMaxDelaySeconds', p.retry_max_delay_seconds, 'retryMaxAttempts', p.retry_max_attempts,
             'retryJitter', p.retry_jitter, 'retryOn', p.retry_on,
             'signing', p.signing, 'honorRetryAfter', p.honor_retry_after, 'notifyUrl', p.notify_url)) AS policies
    FROM tag_policies p
    WHERE p.project_id = r.project_id AND p.tag = ANY (r.tags)
  ) policy
  WHERE e.id = ANY ($1::uuid[]) AND e.trigger_id = r.id AND e.part_day = $2::date AND e.status = 'planned'
  RETURNING e.id, e.part_day, e.attempt_number, e.triggered_by, e.started_at, e.timeout_seconds,
            COALESCE(policy.policies, '[]'::json) AS policies,
            r.id AS trigger_id, r.project_id, r.url, r.method, r.headers, r.body, r.source, r.scheduled_at, r.tags
)
SELECT s.id::text AS "executionId", s.part_day::text AS "partDay", s.trigger_id::text AS "triggerId", s.project_id::text AS "projectId",
       s.attempt_number AS "attemptNumber", s.triggered_by::text AS "triggeredBy",
       s.started_at AS "startedAt", s.timeout_seconds AS "timeoutSeconds",
       s.url, s.method, s.headers, s.body, s.source::text AS source, s.scheduled_at AS "scheduledAt", s.tags,
       s.policies
FROM started s
