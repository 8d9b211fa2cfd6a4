-- One page of a project's executions, newest first by (created_at, id),
-- after a keyset cursor (docs/api/dashboard-api.md). With $3 true only
-- dead letters are listed (docs/concepts.md, dead letters), which the partial index
-- executions_dead_letter_idx serves; a discarded dead letter
-- (docs/api/dead-letters.md) is no longer on that list.
-- Params: $1 project_id, $2 trigger_id or null, $3 dead letters only (bool),
-- $4 cursor created_at (null on the first page), $5 cursor id, $6 number of rows.
-- One branch per case, switched on by its flags, so that one generic plan
-- (the api's lists pool keeps one per connection) serves each through its
-- index: the project's list (executions_project_created_idx), its dead
-- letters (executions_dead_letter_idx), one trigger's attempts
-- (executions_trigger_attempt_key); the cursor compares with coalesced
-- bounds rather than `$4 IS NULL OR …`, which no index condition can use.
-- The trigger's branch finds its rows by trigger alone, behind OFFSET 0 (a
-- subquery the planner keeps whole), and only then keeps the project's:
-- on a day partition not yet analyzed, the planner would otherwise walk the
-- project's index by date, or AND it with the trigger's, reading the
-- project's whole day to return one row (docs/storage.md).
-- Returns executions in the dashboard's Execution shape plus createdAt.
SELECT e.id::text AS id, e.trigger_id::text AS "triggerId", e.attempt_number AS "attemptNumber",
       e.triggered_by::text AS "triggeredBy", CASE WHEN run.attempt_started_at IS NOT NULL THEN 'started' ELSE e.status::text END AS status,
       e.planned_at AS "plannedAt", COALESCE(e.started_at, run.attempt_started_at) AS "startedAt", e.completed_at AS "completedAt", e.response_status AS "responseStatus",
       e.response_headers AS "responseHeaders", e.response_body AS "responseBody",
       e.response_size AS "responseSize", e.error_message AS "errorMessage", e.is_dead_letter AS "isDeadLetter",
       e.discarded_at AS "discardedAt", e.created_at AS "createdAt"
FROM (
  (SELECT e.* FROM executions e
    WHERE $2::uuid IS NULL AND NOT $3::boolean AND e.project_id = $1::uuid
      AND (e.created_at, e.id) < (coalesce($4::timestamptz, 'infinity'), coalesce($5::uuid, 'ffffffff-ffff-ffff-ffff-ffffffffffff'))
    ORDER BY e.created_at DESC, e.id DESC LIMIT $6::int)
  UNION ALL
  (SELECT e.* FROM executions e
    WHERE $2::uuid IS NULL AND $3::boolean AND e.project_id = $1::uuid AND e.is_dead_letter AND e.discarded_at IS NULL
      AND (e.created_at, e.id) < (coalesce($4::timestamptz, 'infinity'), coalesce($5::uuid, 'ffffffff-ffff-ffff-ffff-ffffffffffff'))
    ORDER BY e.created_at DESC, e.id DESC LIMIT $6::int)
  UNION ALL
  (SELECT e.* FROM (SELECT * FROM executions WHERE $2::uuid IS NOT NULL AND trigger_id = $2::uuid OFFSET 0) e
    WHERE e.project_id = $1::uuid AND (NOT $3::boolean OR (e.is_dead_letter AND e.discarded_at IS NULL))
      AND (e.created_at, e.id) < (coalesce($4::timestamptz, 'infinity'), coalesce($5::uuid, 'ffffffff-ffff-ffff-ffff-ffffffffffff'))
    ORDER BY e.created_at DESC, e.id DESC LIMIT $6::int)
) e
LEFT JOIN LATERAL (
  -- a started attempt is stored as planned while its trigger runs it (start_attempts.sql)
  SELECT t.attempt_started_at FROM triggers t
  WHERE e.status = 'planned' AND t.id = e.trigger_id AND t.part_day = e.part_day AND t.status = 'running' AND t.attempts = e.attempt_number
) run ON true
ORDER BY e.created_at DESC, e.id DESC
LIMIT $6::int
