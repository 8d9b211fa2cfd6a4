-- Planned attempts that are due and not yet in the queue, oldest first,
-- locked for this transaction (first attempts, retries, replays). Attempts
-- carrying a tag already found full in this pass are skipped, so a held tag
-- never delays the others (SPEC §4 When a limit is reached 2).
-- Params: $1 now, $2 limit, $3 + $4 the full (project, tag) pairs as
-- parallel uuid[] and text[].
SELECT e.id::text AS "executionId", e.project_id::text AS "projectId", t.tags, e.planned_at AS "plannedAt"
FROM executions e
JOIN triggers t ON t.id = e.trigger_id
WHERE e.status = 'planned' AND e.dispatched_at IS NULL AND e.planned_at <= $1
  AND NOT EXISTS (
    SELECT 1 FROM unnest($3::uuid[], $4::text[]) AS full_tag(project_id, tag)
    WHERE full_tag.project_id = e.project_id AND full_tag.tag = ANY (t.tags)
  )
ORDER BY e.planned_at, e.id
LIMIT $2
FOR UPDATE OF e SKIP LOCKED
