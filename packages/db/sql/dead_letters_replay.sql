-- Replay dead letters in bulk (docs/api/dead-letters.md): Replay now
-- (session_replay.sql) for many triggers in one statement. Picked: the
-- project's dead letters not discarded, completed within [$3, $4), carrying
-- tag $2, that are the latest attempt of a trigger still completed, oldest
-- completion first, at most $5. Each trigger turns queued, its attempt
-- count grows by one, and a planned `replay` execution with that number is
-- due at once; the scheduler dispatches them like any due attempt, within
-- the tags' policies. The dead letters keep their flag.
-- The status check in the UPDATE makes a concurrent replay (single or bulk)
-- of the same trigger lose cleanly: it is replayed once.
-- Params: $1 project_id, $2 tag or null, $3 completed at or after (or null),
-- $4 completed before (or null), $5 the most to replay.
-- Returns one row: count, the triggers replayed.
WITH picked AS (
  SELECT t.id, t.part_day
  FROM executions e JOIN triggers t ON t.id = e.trigger_id AND t.part_day = e.part_day
  WHERE e.project_id = $1::uuid AND e.is_dead_letter AND e.discarded_at IS NULL
    AND ($3::timestamptz IS NULL OR e.completed_at >= $3::timestamptz)
    AND ($4::timestamptz IS NULL OR e.completed_at < $4::timestamptz)
    AND ($2::text IS NULL OR $2::text = ANY (t.tags))
    AND t.status = 'completed' AND t.attempts = e.attempt_number
    -- not one that retention may be removing (retention_set_cutoff.sql)
    AND t.updated_at >= (SELECT coalesce(max(cutoff), '-infinity') FROM retention_state)
  ORDER BY e.completed_at, e.id
  LIMIT $5::int
), t AS (
  UPDATE triggers tr SET status = 'queued', attempts = tr.attempts + 1, updated_at = clock_timestamp()
  FROM picked
  -- Each picked row finds its trigger through the primary key, and nothing
  -- else here could lead to the triggers (the project and retention checks
  -- are made in picked, on the same rows): with another way in, a day not
  -- yet analyzed was read whole for every picked row (10,000 dead letters:
  -- 100 million row pairs, over ten minutes). The status is checked again
  -- on the row updated, so a concurrent replay of the same trigger loses.
  WHERE tr.id = picked.id AND tr.part_day = picked.part_day AND tr.status = 'completed'
  RETURNING tr.id, tr.part_day, tr.project_id, tr.attempts
), e AS (
  INSERT INTO executions (id, part_day, trigger_id, project_id, attempt_number, triggered_by, status,
                          planned_at, dispatched_at, created_at)
  SELECT ttr_uuidv7(), t.part_day, t.id, t.project_id, t.attempts, 'replay', 'planned',
         clock_timestamp(), NULL, clock_timestamp()
  FROM t
  RETURNING 1
)
SELECT count(*)::int AS count FROM e
