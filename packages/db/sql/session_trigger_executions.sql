-- Every execution of one of a project's triggers, by attempt number
-- (docs/api/dashboard-api.md).
-- Params: $1 project_id, $2 trigger_id.
-- Returns executions in the dashboard's Execution shape plus createdAt, and
-- a dead letter's notification outcome (null columns when none was sent).
SELECT e.id::text AS id, e.trigger_id::text AS "triggerId", e.attempt_number AS "attemptNumber",
       e.triggered_by::text AS "triggeredBy", CASE WHEN run.attempt_started_at IS NOT NULL THEN 'started' ELSE e.status::text END AS status,
       e.planned_at AS "plannedAt", COALESCE(e.started_at, run.attempt_started_at) AS "startedAt", e.completed_at AS "completedAt", e.response_status AS "responseStatus",
       e.response_headers AS "responseHeaders", e.response_body AS "responseBody",
       e.response_size AS "responseSize", e.error_message AS "errorMessage", e.is_dead_letter AS "isDeadLetter",
       e.notify_status AS "notifyStatus", e.notify_attempts AS "notifyAttempts", e.notify_error AS "notifyError",
       e.discarded_at AS "discardedAt", e.created_at AS "createdAt"
-- Found by trigger alone, then kept if the project's (see
-- session_list_executions.sql): the plan must not depend on statistics.
FROM (SELECT * FROM executions WHERE trigger_id = $2::uuid OFFSET 0) e
LEFT JOIN LATERAL (
  -- a started attempt is stored as planned while its trigger runs it (start_attempts.sql)
  SELECT t.attempt_started_at FROM triggers t
  WHERE e.status = 'planned' AND t.id = e.trigger_id AND t.part_day = e.part_day AND t.status = 'running' AND t.attempts = e.attempt_number
) run ON true
WHERE e.project_id = $1::uuid
ORDER BY e.attempt_number
