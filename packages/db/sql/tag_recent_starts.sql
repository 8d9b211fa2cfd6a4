-- A project's tag's most recent starts since $3, newest first: what the
-- admission log held before Redis lost it (docs/api/tag-policies.md,
-- throughput). An attempt admitted and not started yet counts from when it
-- was handed to the queue. The rows are found through the executions made
-- since $3 (executions_project_created_idx): a retry planned before $3 and
-- sent after it is not seen, so its start is not counted.
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
