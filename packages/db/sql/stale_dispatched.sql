-- Planned attempts handed to the queue a while ago and still not started,
-- whose trigger still waits for them, oldest due first: candidates for a
-- re-enqueue if their job is gone (a job failed by BullMQ before it
-- started: its executor died holding it, or could not reach PostgreSQL).
-- Params: $1 dispatched before (timestamptz), $2 limit.
SELECT e.id::text AS "executionId", e.part_day::text AS "partDay"
FROM executions e JOIN triggers t ON t.id = e.trigger_id AND t.part_day = e.part_day
WHERE e.status = 'planned' AND e.dispatched_at < $1 AND t.status IN ('queued', 'retrying', 'skipped')
ORDER BY e.planned_at, e.id
LIMIT $2
