-- Replay now / Retry now on a completed one-shot or instance (docs/concepts.md:
-- completed -> queued, new execution): plan a new attempt due at once.
-- The trigger turns queued and its attempt count grows by one; the new
-- planned execution takes that count as its attempt number, so manual
-- sends count toward retryMaxAttempts (docs/concepts.md, dead letters). The
-- scheduler dispatches it like any due planned execution.
-- The status check in the WHERE clause makes a second click lose cleanly:
-- the first one already moved the trigger to queued.
-- Params: $1 project_id, $2 trigger id, $3 triggered_by ('replay' or 'retry').
-- Returns the planned execution, or no row when the trigger is not a
-- completed one-shot or instance of the project.
WITH t AS (
  UPDATE triggers SET status = 'queued', attempts = attempts + 1, updated_at = clock_timestamp()
  WHERE id = $2::uuid AND project_id = $1::uuid AND status = 'completed'
    -- not one that retention may be removing (retention_set_cutoff.sql)
    AND updated_at >= (SELECT coalesce(max(cutoff), '-infinity') FROM retention_state)
  RETURNING id, part_day, project_id, attempts
), e AS (
  INSERT INTO executions (id, part_day, trigger_id, project_id, attempt_number, triggered_by, status,
                          planned_at, dispatched_at, created_at)
  SELECT ttr_uuidv7(), t.part_day, t.id, t.project_id, t.attempts, $3::triggered_by, 'planned',
         clock_timestamp(), NULL, clock_timestamp()
  FROM t
  RETURNING *
)
SELECT e.id::text AS id, e.trigger_id::text AS "triggerId", e.attempt_number AS "attemptNumber",
       e.triggered_by::text AS "triggeredBy", e.status::text AS status, e.planned_at AS "plannedAt",
       e.started_at AS "startedAt", e.completed_at AS "completedAt", e.response_status AS "responseStatus",
       e.response_headers AS "responseHeaders", e.response_body AS "responseBody",
       e.response_size AS "responseSize", e.error_message AS "errorMessage", e.is_dead_letter AS "isDeadLetter",
       e.created_at AS "createdAt"
FROM e
