-- Discard dead letters in bulk (docs/api/dead-letters.md): set discarded_at
-- on the project's dead letters not yet discarded, completed within
-- [$3, $4), whose trigger carries tag $2, oldest completion first, at most
-- $5. They keep is_dead_letter, so history and the per-minute counts stay
-- as they happened, but leave the dead-letter list and later bulk replays.
-- Their triggers are not changed.
-- Params: $1 project_id, $2 tag or null, $3 completed at or after (or null),
-- $4 completed before (or null), $5 the most to discard.
-- Returns one row: count, the dead letters discarded.
WITH picked AS (
  SELECT e.id, e.part_day FROM executions e
  WHERE e.project_id = $1::uuid AND e.is_dead_letter AND e.discarded_at IS NULL
    AND ($3::timestamptz IS NULL OR e.completed_at >= $3::timestamptz)
    AND ($4::timestamptz IS NULL OR e.completed_at < $4::timestamptz)
    AND ($2::text IS NULL OR EXISTS (
      SELECT 1 FROM triggers t WHERE t.id = e.trigger_id AND t.part_day = e.part_day AND $2::text = ANY (t.tags)))
  ORDER BY e.completed_at, e.id
  LIMIT $5::int
), done AS (
  UPDATE executions x SET discarded_at = clock_timestamp()
  FROM picked
  -- Each picked row finds its execution through the primary key, and
  -- nothing else here could lead to the executions (picked made the
  -- project and dead-letter checks on the same rows): with another way in,
  -- a day not yet analyzed could be read whole for every picked row
  -- (dead_letters_replay.sql). discarded_at is checked again on the row
  -- updated, so a concurrent discard counts each execution once.
  WHERE x.id = picked.id AND x.part_day = picked.part_day AND x.discarded_at IS NULL
  RETURNING 1
)
SELECT count(*)::int AS count FROM done
