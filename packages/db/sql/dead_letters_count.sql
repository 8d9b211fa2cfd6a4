-- How many dead letters a bulk replay ($6 true) or a bulk discard ($6 false)
-- would act on now (docs/api/dead-letters.md), at most $5: the dry run and
-- the count shown before confirming. The selection is the one of
-- dead_letters_replay.sql and dead_letters_discard.sql: dead letters of the
-- project not discarded, completed within [$3, $4), carrying tag $2; for a
-- replay also only the latest attempt of a trigger still completed.
-- executions_dead_letter_open_idx serves the range; triggers are read by
-- primary key.
-- Params: $1 project_id, $2 tag or null, $3 completed at or after (or null),
-- $4 completed before (or null), $5 the most to count, $6 replay (bool).
-- Returns one row: count.
SELECT count(*)::int AS count FROM (
  SELECT 1 FROM executions e
  WHERE e.project_id = $1::uuid AND e.is_dead_letter AND e.discarded_at IS NULL
    AND ($3::timestamptz IS NULL OR e.completed_at >= $3::timestamptz)
    AND ($4::timestamptz IS NULL OR e.completed_at < $4::timestamptz)
    AND (($2::text IS NULL AND NOT $6::boolean) OR EXISTS (
      SELECT 1 FROM triggers t
      WHERE t.id = e.trigger_id AND t.part_day = e.part_day
        AND ($2::text IS NULL OR $2::text = ANY (t.tags))
        AND (NOT $6::boolean OR (t.status = 'completed' AND t.attempts = e.attempt_number
          AND t.updated_at >= (SELECT coalesce(max(cutoff), '-infinity') FROM retention_state)))))
  ORDER BY e.completed_at, e.id
  LIMIT $5::int
) AS picked
