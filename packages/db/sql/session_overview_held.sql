-- A project's held backlog per tag, for the dashboard's overview
-- (docs/api/dashboard-api.md): due planned attempts that a tag's policy
-- holds back (held_by, set at the last admission check), counted per tag,
-- with the due time of each tag's oldest. The project's tags are found by
-- skipping through executions_held_idx (project, held_by, planned_at, id),
-- one probe per tag, and each tag's count stops at $3, so a backlog of
-- millions behind one tag costs no more than $3 rows: a count equal to $3
-- means at least that many. count_held_by_tag.sql is the same figure for
-- every project, as the scheduler's gauge.
-- Every tag holding attempts is counted (up to $5 tags, far more than a
-- project has policies) before the $4 largest are kept, so that the list is
-- the largest backlogs, not the first tags by name.
-- Params: $1 project_id, $2 now, $3 the most to count per tag, $4 the most
-- tags returned, $5 the most tags counted.
-- Returns {tag, held, oldestPlannedAt}, the largest backlogs first.
WITH RECURSIVE tags AS (
  (SELECT held_by FROM executions
   WHERE project_id = $1::uuid AND status = 'planned' AND dispatched_at IS NULL AND held_by IS NOT NULL
   ORDER BY held_by LIMIT 1)
  UNION ALL
  SELECT nxt.held_by
  FROM tags, LATERAL (
    SELECT held_by FROM executions
    WHERE project_id = $1::uuid AND status = 'planned' AND dispatched_at IS NULL AND held_by IS NOT NULL
      AND held_by > tags.held_by
    ORDER BY held_by LIMIT 1
  ) nxt
)
SELECT tags.held_by AS tag, c.held, c.oldest AS "oldestPlannedAt"
FROM (SELECT held_by FROM tags LIMIT $5) tags
CROSS JOIN LATERAL (
  SELECT count(*)::int AS held, min(planned_at) AS oldest
  FROM (
    SELECT x.planned_at FROM executions x
    WHERE x.project_id = $1::uuid AND x.held_by = tags.held_by
      AND x.status = 'planned' AND x.dispatched_at IS NULL AND x.planned_at <= $2::timestamptz
    ORDER BY x.planned_at
    LIMIT $3
  ) h
) c
WHERE c.held > 0
ORDER BY c.held DESC, tags.held_by
LIMIT $4
