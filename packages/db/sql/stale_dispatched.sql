-- Planned attempts handed to the queue a while ago and still not started:
-- candidates for a re-enqueue if their job is gone (a scheduler that died
-- between commit and enqueue, a job failed by BullMQ before it started).
-- Params: $1 dispatched before (timestamptz), $2 limit.
SELECT id::text
FROM executions
WHERE status = 'planned' AND dispatched_at < $1
ORDER BY dispatched_at
LIMIT $2
