-- When the next planned attempt (a retry, a replay) falls due after now, so
-- the scheduler can wake for it instead of waiting for its next tick
-- (docs/api/tag-policies.md, retries: a retry leaves at its delay, not up to a tick later).
-- Params: $1 now.
SELECT min(planned_at) AS "nextAt"
FROM executions
WHERE status = 'planned' AND dispatched_at IS NULL AND held_by IS NULL AND planned_at > $1
