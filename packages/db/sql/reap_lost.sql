-- Close attempts still started after their timeout plus the grace period as
-- Executor died (docs/concepts.md, lost attempts): execution complete with no
-- response data, trigger completed, no retry, not a dead letter.
-- A started attempt is a `planned` execution whose trigger is running on
-- that attempt number, with its deadline on the trigger (start_attempts.sql):
-- those are found through triggers_lost_idx. Executions stored as `started`
-- (from before starts were recorded that way) are found through
-- executions_reap_idx, as before.
-- The executions are locked first (SKIP LOCKED: one being finished right
-- now is left to its finish), then updated, then their triggers, the order
-- finish_attempts.sql takes them in, so the two never wait on each other in
-- a cycle.
-- Params: $1 now, $2 limit. Returns the closed executions with their
-- trigger's tags, whose concurrency slots are now free.
WITH running AS (
  SELECT t.id, t.part_day, t.attempts, t.attempt_started_at, t.attempt_timeout_seconds FROM triggers t
  WHERE t.status = 'running' AND t.attempt_reap_after <= $1
  ORDER BY t.attempt_reap_after
  LIMIT $2
), lost AS (
  SELECT e.id, e.part_day, r.attempt_started_at AS started_at, r.attempt_timeout_seconds AS timeout_seconds
  FROM running r
  JOIN executions e ON e.trigger_id = r.id AND e.attempt_number = r.attempts AND e.part_day = r.part_day
  WHERE e.status = 'planned'
  FOR UPDATE OF e SKIP LOCKED
), lost_before AS (
  SELECT id, part_day, started_at, timeout_seconds FROM executions
  WHERE status = 'started' AND reap_after <= $1
  ORDER BY reap_after
  LIMIT $2
  FOR UPDATE SKIP LOCKED
), closed AS (
  UPDATE executions e
  SET status = 'complete', completed_at = clock_timestamp(), started_at = lost.started_at, timeout_seconds = lost.timeout_seconds,
      error_message = 'Executor died (status=started past reap_after)'
  FROM (SELECT * FROM lost UNION ALL SELECT * FROM lost_before) lost
  WHERE e.id = lost.id AND e.part_day = lost.part_day
  RETURNING e.id, e.trigger_id, e.part_day, e.project_id, e.completed_at, e.attempt_number, e.started_at, e.planned_at
), counted AS (
  -- counted per minute like any ended attempt: a network failure (GET /stats)
  SELECT ttr_count_attempts(array_agg(project_id), array_agg(completed_at), array_agg(NULL::int), array_agg(true),
                            array_agg(false), array_agg(attempt_number), array_agg(started_at), array_agg(planned_at)) AS n
  FROM closed
), finished AS (
  UPDATE triggers t SET status = 'completed', updated_at = clock_timestamp()
  FROM closed WHERE t.id = closed.trigger_id AND t.part_day = closed.part_day AND t.status = 'running'
)
SELECT c.id::text AS "executionId", c.trigger_id::text AS "triggerId", c.project_id::text AS "projectId", t.tags
FROM closed c JOIN triggers t ON t.id = c.trigger_id AND t.part_day = c.part_day
CROSS JOIN counted -- one row; joined so that it runs
