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
    SELECT planned_at FROM executions
    WHERE project_id = $1::uuid AND status = 'planned' AND dispatched_at IS NOT NULL
    ORDER BY planned_at
    LIMIT $2
  ) w
) q, (
  SELECT count(*)::int AS running FROM (
    SELECT 1 FROM triggers
    WHERE project_id = $1::uuid AND status = 'running'
    LIMIT $2
  ) x
) r
