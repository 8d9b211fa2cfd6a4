-- Start planned attempts, many in one statement (the executor batches the
-- jobs it takes at about the same time): trigger queued or retrying (or
-- skipped, moved into the past by custom key while its retry waited) →
-- running (docs/concepts.md). The start is recorded on the trigger only:
-- its start time, its timeout, fixed here from its tags' policies
-- (docs/api/tag-policies.md, timeout), and the deadline past which it is
-- closed as Executor died. The execution stays `planned`, and reads as
-- started while its trigger runs that attempt number (a new version of the
-- execution, with an entry in each of its indexes, was a tenth of a fire's
-- WAL: docs/storage.md). The retry settings applied if the attempt fails
-- (docs/api/tag-policies.md, retries) and the delivery extras (signing,
-- Retry-After, dead-letter notification) its policies ask for are returned,
-- and when the trigger was first due: its scheduled second, or its creation
-- when it was made for a time already past (the executor's lateness counts
-- from there).
-- Params: $1 execution ids (uuid[]), $2 the day they are stored under
-- (date: only that day's partitions are read, also by a prepared plan, so
-- attempts of several days take one statement per day), $3 default
-- timeout seconds, $4 reap grace seconds.
-- Returns one row per attempt that started; an id without a row may not
-- start (already started elsewhere, or its trigger was cancelled meanwhile).
-- Each trigger is updated through its primary key, guarded by its status
-- and its attempt count: whatever else changes a trigger's planned attempt
-- (a cancel, another executor given the same job, that attempt ending and
-- the next one being planned) updates the trigger first, so the second of
-- two waits for the first and then finds the trigger no longer queued or
-- retrying, or on a later attempt (every new attempt raises `attempts` and
-- takes it as its number). No row is locked apart from the ones updated,
-- which would cost a lock record in the WAL per row (docs/storage.md, what
-- a fire writes).
-- Each step is driven by the previous one's rows, one index lookup per
-- row: the planned executions find their triggers by primary key, and each
-- running trigger its policies (through tag_policies' unique index). No
-- step offers the planner a way to read a table apart from the rows before
-- it: PostgreSQL cannot estimate a CTE's rows, and on a day not yet
-- analyzed it ran nested loops that read one step's rows again for each
-- row of the other, 40,000 row pairs for 200 attempts (docs/storage.md).
-- The timeout and the deadline come from one subquery of the updated row,
-- so they follow the tags of the version updated (an edit of a retrying
-- trigger that commits first is the one sent).
WITH planned AS (
  SELECT e.id, e.trigger_id, e.attempt_number, e.triggered_by FROM executions e
  WHERE e.id = ANY ($1::uuid[]) AND e.part_day = $2::date AND e.status = 'planned'
  -- the triggers are then updated (locked) in id order, as every statement
  -- that updates several does, so two of them never wait on each other
  ORDER BY e.trigger_id
), running AS (
  UPDATE triggers t
  SET status = 'running', updated_at = clock_timestamp(), attempt_started_at = clock_timestamp(),
      (attempt_timeout_seconds, attempt_reap_after) = (
        SELECT COALESCE(min(p.request_timeout_seconds), $3::int),
               clock_timestamp() + make_interval(secs => COALESCE(min(p.request_timeout_seconds), $3::int) + $4::int)
        FROM tag_policies p
        WHERE p.project_id = t.project_id AND p.tag = ANY (t.tags))
  FROM planned p
  WHERE t.id = p.trigger_id AND t.part_day = $2::date
    AND t.status IN ('queued', 'retrying', 'skipped') AND t.attempts = p.attempt_number
  RETURNING p.id AS execution_id, p.attempt_number, p.triggered_by, t.attempt_started_at, t.attempt_timeout_seconds,
            t.id, t.project_id, t.url, t.method, t.headers, t.body, t.source, t.scheduled_at, t.created_at, t.tags
)
SELECT r.execution_id::text AS "executionId", $2::date::text AS "partDay", r.id::text AS "triggerId", r.project_id::text AS "projectId",
       r.attempt_number AS "attemptNumber", r.triggered_by::text AS "triggeredBy",
       r.attempt_started_at AS "startedAt", r.attempt_timeout_seconds AS "timeoutSeconds",
       r.url, r.method, r.headers, r.body, r.source::text AS source, r.scheduled_at AS "scheduledAt",
       greatest(r.scheduled_at, r.created_at) AS "dueAt", r.tags,
       COALESCE(policy.policies, '[]'::json) AS policies
FROM running r
CROSS JOIN LATERAL (
  SELECT json_agg(json_build_object(
           'tag', p.tag,
           'retryStrategy', p.retry_strategy, 'retryInitialDelaySeconds', p.retry_initial_delay_seconds,
           'retryMaxDelaySeconds', p.retry_max_delay_seconds, 'retryMaxAttempts', p.retry_max_attempts,
           'retryJitter', p.retry_jitter, 'retryOn', p.retry_on,
           'signing', p.signing, 'honorRetryAfter', p.honor_retry_after, 'notifyUrl', p.notify_url)) AS policies
  FROM tag_policies p
  WHERE p.project_id = r.project_id AND p.tag = ANY (r.tags)
) policy
