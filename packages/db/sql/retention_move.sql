-- Move surviving triggers of an old partition, with their executions and
-- tag rows, to a newer day so that the old partition can be dropped whole:
-- a final trigger to the day it became final (it then leaves with that
-- day's partition, exactly on time), any other to today, as is a final one
-- that stays only for an attempt still to come (it became final before the
-- cutoff: moved to its own day, it would hop a day at a time through every
-- old day of the pass). Executions of a moved trigger that
-- finished before the cutoff are removed instead of moved. Rows locked by
-- another transaction right now are skipped (the partition then waits for
-- the next pass).
-- Params: $1 trigger ids (uuid[]), $2 partition's first day, $3 its end
-- (exclusive), $4 cutoff (timestamptz), $5 today (date).
-- Returns how many triggers moved, executions removed and carried, and tag
-- rows written.
WITH s AS (
  SELECT t.id, t.part_day,
         CASE WHEN t.status IN ('completed', 'cancelled', 'skipped') AND t.updated_at >= $4::timestamptz
              THEN least(greatest((t.updated_at AT TIME ZONE 'UTC')::date, $3::date), $5::date)
              ELSE $5::date END AS dest
  FROM triggers t
  WHERE t.id = ANY ($1::uuid[]) AND t.part_day >= $2::date AND t.part_day < $3::date
  FOR UPDATE SKIP LOCKED
), moved AS (
  UPDATE triggers t SET part_day = s.dest
  FROM s WHERE t.id = s.id AND t.part_day = s.part_day
  RETURNING t.id, t.project_id, t.tags, t.created_at, s.part_day AS was, s.dest
), tagged AS (
  -- a move fires no insert trigger: the tag rows follow here (the old ones
  -- were removed by the delete trigger, or go with the old partition)
  INSERT INTO trigger_tags (project_id, tag, created_at, trigger_id, part_day)
  SELECT DISTINCT m.project_id, tag, m.created_at, m.id, m.dest FROM moved m, unnest(m.tags) AS tag
  ON CONFLICT DO NOTHING
  RETURNING trigger_id
), expired AS (
  DELETE FROM executions e USING moved m
  WHERE e.trigger_id = m.id AND e.part_day = m.was AND e.status = 'complete' AND e.completed_at < $4::timestamptz
  RETURNING e.id
), carried AS (
  UPDATE executions e SET part_day = m.dest
  FROM moved m
  WHERE e.trigger_id = m.id AND e.part_day = m.was AND NOT (e.status = 'complete' AND e.completed_at < $4::timestamptz)
  RETURNING e.id
)
SELECT (SELECT count(*) FROM moved)::int AS moved, (SELECT count(*) FROM expired)::int AS expired,
       (SELECT count(*) FROM carried)::int AS carried, (SELECT count(*) FROM tagged)::int AS tagged
