-- A project's tag's most recent starts since $3, newest first: what the
-- admission log held before Redis lost it (docs/api/tag-policies.md,
-- throughput). An attempt admitted and not started yet counts from when it
-- was handed to the queue. The rows are found through the executions made
-- since $3 (executions_project_created_idx), so an attempt made before $3
-- and started after it is not seen: a retry planned before the window, or
-- an attempt that waited in its tag's backlog for longer than the window.
-- Finding those too needs an index on when attempts start, which every
-- fire would pay for (docs/storage.md): not worth it for a Redis that lost
-- its data.
-- Params: $1 project_id, $2 tag, $3 window start, $4 how many at most.
-- Each execution's trigger is looked up by its key (the LATERAL with LIMIT
-- keeps that a nested loop even in a generic plan, which would otherwise
-- hash-join every trigger partition).
SELECT e.id::text AS id, coalesce(e.started_at, e.dispatched_at) AS "startedAt"
FROM executions e
JOIN LATERAL (
  SELECT 1 FROM triggers t WHERE t.id = e.trigger_id AND t.part_day = e.part_day AND $2 = ANY (t.tags) LIMIT 1
) tagged ON true
WHERE e.project_id = $1::uuid AND e.created_at >= $3
  AND coalesce(e.started_at, e.dispatched_at) >= $3
ORDER BY 2 DESC
LIMIT $4
