-- Retry now on a retrying one-shot or instance (docs/api/dashboard-api.md): its pending
-- planned retry becomes due at once. It keeps its attempt number and
-- triggered_by 'retry', and tag policy limits still apply when the scheduler
-- admits it (docs/concepts.md: a retry held by a policy stays retrying). A retry that
-- is already due keeps its earlier time.
-- Params: $1 project_id, $2 trigger id.
-- Returns the planned execution, or no row when the trigger is not retrying
-- or has no planned execution.
UPDATE executions e SET planned_at = LEAST(e.planned_at, clock_timestamp())
FROM triggers t
WHERE t.id = $2::uuid AND t.project_id = $1::uuid AND t.status = 'retrying'
  AND e.trigger_id = t.id AND e.part_day = t.part_day AND e.status = 'planned'
RETURNING e.id::text AS id, e.trigger_id::text AS "triggerId", e.attempt_number AS "attemptNumber",
       e.triggered_by::text AS "triggeredBy", e.status::text AS status, e.planned_at AS "plannedAt",
       e.started_at AS "startedAt", e.completed_at AS "completedAt", e.response_status AS "responseStatus",
       e.response_headers AS "responseHeaders", e.response_body AS "responseBody",
       e.response_size AS "responseSize", e.error_message AS "errorMessage", e.is_dead_letter AS "isDeadLetter",
       e.created_at AS "createdAt"
