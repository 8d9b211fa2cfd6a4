-- Due planned attempts not yet admitted to the queue (held by a policy, or
-- waiting for the next tick).
-- Params: $1 now.
SELECT count(*)::int AS held
FROM executions
WHERE status = 'planned' AND dispatched_at IS NULL AND planned_at <= $1
