-- Record an attempt's outcome (SPEC §2 Execution, SPEC §3): execution
-- started → complete; trigger running → completed, or → retrying with the
-- next attempt planned at failure time plus delay.
-- Params: $1 execution id, $2 completed_at, $3 response_status,
-- $4 response_headers (jsonb text), $5 response_body, $6 response_size,
-- $7 error_message, $8 is_dead_letter, $9 retry planned_at (null: no retry).
-- Returns whether the outcome was recorded (false when the attempt had
-- already been closed as Executor died) and the planned retry, if any.
WITH done AS (
  UPDATE executions
  SET status = 'complete', completed_at = $2, response_status = $3, response_headers = $4::jsonb,
      response_body = $5, response_size = $6, error_message = $7, is_dead_letter = $8
  WHERE id = $1::uuid AND status = 'started'
  RETURNING trigger_id
), trig AS (
  UPDATE triggers t
  SET status = CASE WHEN $9::timestamptz IS NULL THEN 'completed'::trigger_status ELSE 'retrying'::trigger_status END,
      attempts = t.attempts + CASE WHEN $9::timestamptz IS NULL THEN 0 ELSE 1 END,
      updated_at = clock_timestamp()
  FROM done WHERE t.id = done.trigger_id AND t.status = 'running'
  RETURNING t.id, t.project_id, t.attempts
), retry AS (
  INSERT INTO executions (id, trigger_id, project_id, attempt_number, triggered_by, status, planned_at, created_at)
  SELECT gen_random_uuid(), trig.id, trig.project_id, trig.attempts, 'retry', 'planned', $9::timestamptz, clock_timestamp()
  FROM trig WHERE $9::timestamptz IS NOT NULL
  RETURNING id
)
SELECT (SELECT count(*) FROM done)::int AS recorded, (SELECT id::text FROM retry) AS "retryExecutionId"
