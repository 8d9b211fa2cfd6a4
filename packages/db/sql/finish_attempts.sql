-- Record the outcomes of many attempts in one statement (docs/concepts.md,
-- states): execution started → complete; trigger running → completed, or
-- → retrying with its next attempt planned at failure time plus delay.
-- A started attempt is stored as a `planned` execution whose trigger is
-- running on that attempt number, with the start on the trigger
-- (start_attempts.sql); the execution takes the start time and timeout
-- from its trigger as it completes. One stored as `started` (from before
-- starts were recorded that way) is finished the same.
-- Params: parallel arrays, one entry per attempt: $1 execution ids,
-- $2 completed_at, $3 response_status, $4 response_headers (jsonb text),
-- $5 response_body, $6 response_size, $7 error_message, $8 is_dead_letter,
-- $9 retry planned_at (null: no retry); $10 the day all of them are stored
-- under (date: only that day's partitions are read, also by a prepared
-- plan, so attempts of several days take one statement per day).
-- Returns one row per attempt recorded (none for one already closed as
-- Executor died), with a null retryExecutionId, and one more row for each
-- retry planned, naming the attempt that failed and the retry
-- (firing.ts merges them). The attempts are also counted per minute
-- (attempt_minutes, through ttr_count_attempts).
WITH outcome AS (
  SELECT * FROM unnest($1::uuid[], $2::timestamptz[], $3::int[], $4::text[], $5::text[], $6::int[], $7::text[], $8::boolean[], $9::timestamptz[])
    AS o(id, completed_at, response_status, response_headers, response_body, response_size, error_message, is_dead_letter, retry_at)
  -- rows are updated (locked) in id order, as by every statement that
  -- updates several, so two of them never wait on each other
  ORDER BY o.id
), done AS (
  UPDATE executions e
  SET status = 'complete', completed_at = o.completed_at, response_status = o.response_status,
      response_headers = o.response_headers::jsonb, response_body = o.response_body,
      response_size = o.response_size, error_message = o.error_message, is_dead_letter = o.is_dead_letter,
      started_at = COALESCE(e.started_at, r.attempt_started_at), timeout_seconds = COALESCE(e.timeout_seconds, r.attempt_timeout_seconds)
  FROM outcome o, triggers r
  -- The outcomes drive: one primary-key lookup per attempt and one for its
  -- trigger, and then one per trigger again (trig), so the cost follows the
  -- batch whatever the planner believes of the day's rows. status is
  -- compared as text so that no partial index on status offers another way
  -- in: without statistics (a fresh day, a burst) the planner took the
  -- started executions first and read the whole unnest again for each of
  -- them, 40,000 row pairs for 200 attempts (docs/storage.md).
  WHERE e.id = o.id AND e.part_day = $10::date AND r.id = e.trigger_id AND r.part_day = $10::date
    AND (e.status::text = 'started'
         OR (e.status::text = 'planned' AND r.status::text = 'running' AND r.attempts = e.attempt_number))
  RETURNING e.id, e.trigger_id, e.part_day, o.retry_at, e.project_id, e.completed_at, e.response_status, e.error_message,
            e.is_dead_letter, e.attempt_number, e.started_at, e.planned_at
), counted AS (
  -- each attempt adds itself to its minute's counts (GET /stats, the overview's lateness)
  SELECT ttr_count_attempts(array_agg(project_id), array_agg(completed_at), array_agg(response_status), array_agg(error_message IS NOT NULL),
                            array_agg(is_dead_letter), array_agg(attempt_number), array_agg(started_at), array_agg(planned_at)) AS n
  FROM done
), trig AS (
  UPDATE triggers t
  SET status = CASE WHEN done.retry_at IS NULL THEN 'completed'::trigger_status ELSE 'retrying'::trigger_status END,
      attempts = t.attempts + CASE WHEN done.retry_at IS NULL THEN 0 ELSE 1 END,
      updated_at = clock_timestamp()
  FROM (SELECT d.trigger_id, d.retry_at, d.id FROM done d ORDER BY d.trigger_id) done
  WHERE t.id = done.trigger_id AND t.part_day = $10::date AND t.status = 'running'
  -- the retry's id is drawn here, so that the answer names it beside the
  -- attempt that failed without joining two steps' rows (a join of done
  -- and the inserted retries ran as a nested loop: 39,800 row pairs for
  -- 200 failed attempts; docs/storage.md)
  RETURNING t.id, t.part_day, t.project_id, t.attempts, done.retry_at, done.id AS failed_id,
            CASE WHEN done.retry_at IS NOT NULL THEN ttr_uuidv7() END AS retry_id
), retry AS (
  INSERT INTO executions (id, part_day, trigger_id, project_id, attempt_number, triggered_by, status, planned_at, created_at)
  SELECT trig.retry_id, trig.part_day, trig.id, trig.project_id, trig.attempts, 'retry', 'planned', trig.retry_at, clock_timestamp()
  FROM trig WHERE trig.retry_id IS NOT NULL
)
SELECT done.id::text AS "executionId", NULL::text AS "retryExecutionId"
FROM done CROSS JOIN counted -- one row; joined so that it runs
UNION ALL
SELECT trig.failed_id::text, trig.retry_id::text FROM trig WHERE trig.retry_id IS NOT NULL
