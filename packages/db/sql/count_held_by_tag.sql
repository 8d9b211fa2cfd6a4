-- Due attempts a tag policy holds back, counted per project and tag, the
-- largest backlogs first: the scheduler's per-tag held gauge. Reads only the
-- partial index executions_held_idx (project_id, held_by, planned_at, id),
-- whatever the size of the history.
-- Params: $1 now, $2 how many (project, tag) pairs at most.
-- Returns: projectId, tag, held.
SELECT project_id AS "projectId", held_by AS tag, count(*)::int AS held
  FROM executions
 WHERE status = 'planned' AND dispatched_at IS NULL AND held_by IS NOT NULL AND planned_at <= $1
 GROUP BY project_id, held_by
 ORDER BY held DESC, project_id, held_by
 LIMIT $2
