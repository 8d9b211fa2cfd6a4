-- Held planned attempts to admit again (docs/api/tag-policies.md, when a limit is reached):
-- for each (project, tag) that holds some, its oldest ones, locked for this
-- transaction. The groups are found by skipping through executions_held_idx
-- (one probe per group), so a large backlog behind one tag costs no more
-- than a small one.
-- Params: $1 now, $2 attempts per group, $3 + $4 (project, tag) groups to
-- leave out (found full earlier in this pass), as parallel uuid[] and text[].
-- Returns the attempts of all groups, oldest first, with the tag each is
-- held by.
WITH RECURSIVE grp AS (
  (SELECT project_id, held_by FROM executions
   WHERE status = 'planned' AND dispatched_at IS NULL AND held_by IS NOT NULL
   ORDER BY project_id, held_by LIMIT 1)
  UNION ALL
  SELECT nxt.project_id, nxt.held_by
  FROM grp, LATERAL (
    SELECT project_id, held_by FROM executions
    WHERE status = 'planned' AND dispatched_at IS NULL AND held_by IS NOT NULL
      AND (project_id, held_by) > (grp.project_id, grp.held_by)
    ORDER BY project_id, held_by LIMIT 1
  ) nxt
), wanted AS (
  SELECT grp.project_id, grp.held_by FROM grp
  WHERE NOT EXISTS (
    SELECT 1 FROM unnest($3::uuid[], $4::text[]) AS skip(project_id, tag)
    WHERE skip.project_id = grp.project_id AND skip.tag = grp.held_by
  )
)
SELECT e.id::text AS "executionId", e.part_day::text AS "partDay", e.project_id::text AS "projectId", t.tags, e.planned_at AS "plannedAt", e.held_by AS "heldBy"
FROM wanted
CROSS JOIN LATERAL (
  SELECT x.id, x.project_id, x.trigger_id, x.part_day, x.planned_at, x.held_by FROM executions x
  WHERE x.project_id = wanted.project_id AND x.held_by = wanted.held_by
    AND x.status = 'planned' AND x.dispatched_at IS NULL AND x.planned_at <= $1
  ORDER BY x.planned_at, x.id
  LIMIT $2
  FOR UPDATE SKIP LOCKED
) e
JOIN triggers t ON t.id = e.trigger_id AND t.part_day = e.part_day
ORDER BY e.planned_at, e.id
