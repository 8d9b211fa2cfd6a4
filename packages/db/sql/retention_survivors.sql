-- Triggers of one day partition that must outlive it: not yet final
-- (registered, or an attempt planned or started), or final since the
-- cutoff. Each branch is served by an index (the due index, the execution
-- indexes of attempts in flight, the BRIN summary of updated_at), so an old
-- partition is not read whole. A trigger whose every attempt is over and
-- whose final status is older than the cutoff is not returned: it goes with
-- the partition.
-- Params: $1 partition's first day (date; '-infinity' for the legacy one),
-- $2 its end (exclusive), $3 cutoff (timestamptz), $4 limit.
-- Returns trigger ids.
SELECT id::text AS id FROM (
  SELECT t.id FROM triggers t
  WHERE t.part_day >= $1::date AND t.part_day < $2::date AND t.status = 'registered'
  UNION
  SELECT t.id FROM triggers t
  WHERE t.part_day >= $1::date AND t.part_day < $2::date AND t.updated_at >= $3::timestamptz
  UNION
  SELECT e.trigger_id FROM executions e
  WHERE e.part_day >= $1::date AND e.part_day < $2::date AND e.status = 'planned' AND e.dispatched_at IS NULL AND e.held_by IS NULL
  UNION
  SELECT e.trigger_id FROM executions e
  WHERE e.part_day >= $1::date AND e.part_day < $2::date AND e.status = 'planned' AND e.dispatched_at IS NULL AND e.held_by IS NOT NULL
  UNION
  SELECT e.trigger_id FROM executions e
  WHERE e.part_day >= $1::date AND e.part_day < $2::date AND e.status = 'planned' AND e.dispatched_at IS NOT NULL
  UNION
  SELECT e.trigger_id FROM executions e
  WHERE e.part_day >= $1::date AND e.part_day < $2::date AND e.status = 'started'
) s
LIMIT $4
