-- A project's queue, for the dashboard's overview
-- (docs/api/dashboard-api.md): attempts handed to the queue and not started
-- yet (first attempts, retries and replays alike; held ones are not in the
-- queue), the due time of the oldest of them, and triggers running now.
-- Each count stops at $2, so a backlog of millions costs no more than $2
-- rows: a count equal to $2 means at least that many.
-- The attempts are read in executions_project_in_queue_idx's order
-- (project, planned_at), which keeps the planner on that index rather than
-- on executions_in_queue_idx, whose range holds every project's queue;
-- running triggers are the (project, status) range of
-- triggers_project_status_created_idx.
-- Params: $1 project_id, $2 the most to count.
-- Returns one row {inQueue, oldestInQueue, running}.
SELECT q.in_queue AS "inQueue", q.oldest AS "oldestInQueue", r.running
FROM (
  SELECT count(*)::int AS in_queue, min(planned_at) AS oldest FROM (
    SELECT e.planned_at FROM executions e
    WHERE e.project_id = $1::uuid AND e.status = 'planned' AND e.dispatched_at IS NOT NULL
      -- not one being sent: a started attempt stays planned while its
      -- trigger runs it (start_attempts.sql); one primary-key probe per row
      AND NOT EXISTS (SELECT FROM triggers t WHERE t.id = e.trigger_id AND t.part_day = e.part_day
                                            AND t.status = 'running' AND t.attempts = e.attempt_number)
    ORDER BY e.planned_at
    LIMIT $2
  ) w
) q, (
  SELECT count(*)::int AS running FROM (
    SELECT 1 FROM triggers
    WHERE project_id = $1::uuid AND status = 'running'
    LIMIT $2
  ) x
) r
