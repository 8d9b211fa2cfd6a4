-- Attempts of a project's tag that hold a concurrency slot: started, or
-- admitted and on their way to an executor (docs/api/tag-policies.md, concurrency).
-- Params: $1 project_id, $2 tag. Returns execution ids.
SELECT e.id::text
FROM executions e JOIN triggers t ON t.id = e.trigger_id AND t.part_day = e.part_day
WHERE e.project_id = $1::uuid AND $2 = ANY (t.tags)
  AND (e.status = 'started' OR (e.status = 'planned' AND e.dispatched_at IS NOT NULL))
