-- Close attempts still started after their timeout plus the grace period as
-- Executor died (docs/concepts.md, lost attempts): execution complete with no
-- response data, trigger completed, no retry, not a dead letter.
-- Params: $1 now, $2 limit. Returns the closed executions with their
-- trigger's tags, whose concurrency slots are now free.
WITH lost AS (
  SELECT id, part_day FROM executions
  WHERE status = 'started' AND reap_after <= $1
  ORDER BY reap_after
  LIMIT $2
  FOR UPDATE SKIP LOCKED
), closed AS (
  UPDATE executions e
  SET status = 'complete', completed_at = clock_timestamp(),
      error_message = 'Executor died (status=started past reap_after)'
  FROM lost WHERE e.id = lost.id AND e.part_day = lost.part_day
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
