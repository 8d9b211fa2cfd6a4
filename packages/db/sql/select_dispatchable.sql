-- Planned attempts that are due, not yet in the queue and not held by a tag
-- policy, oldest first, locked for this transaction (first attempts,
-- retries, replays). Held attempts are left to select_held, so a held
-- backlog costs this scan nothing (docs/api/tag-policies.md, when a limit is reached).
-- Params: $1 now, $2 limit.
SELECT e.id::text AS "executionId", e.part_day::text AS "partDay", e.project_id::text AS "projectId", t.tags, e.planned_at AS "plannedAt"
FROM executions e
JOIN triggers t ON t.id = e.trigger_id AND t.part_day = e.part_day
WHERE e.status = 'planned' AND e.dispatched_at IS NULL AND e.held_by IS NULL AND e.planned_at <= $1
ORDER BY e.planned_at, e.id
LIMIT $2
FOR UPDATE OF e SKIP LOCKED
