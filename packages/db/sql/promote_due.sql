-- Claim due triggers, oldest first: registered → queued, with their attempt
-- planned (SPEC §3; SPEC §1 firing precision 2–3). SKIP LOCKED lets a
-- standby scheduler or an overlapping tick run the same statement safely.
-- An attempt of a trigger without tags has no policy to wait for: it is
-- marked dispatched here and goes to the queue at once, sparing it
-- select_dispatchable and mark_dispatched.
-- Params: $1 now (timestamptz), $2 batch size.
-- Returns one row per claimed trigger with its planned execution, and
-- whether that attempt is already dispatched.
WITH due AS (
  SELECT id, part_day FROM triggers
  WHERE status = 'registered' AND scheduled_at <= $1
  ORDER BY scheduled_at, id
  LIMIT $2
  FOR UPDATE SKIP LOCKED
), claimed AS (
  UPDATE triggers t
  SET status = 'queued', attempts = t.attempts + 1, updated_at = clock_timestamp()
  FROM due WHERE t.id = due.id AND t.part_day = due.part_day
  RETURNING t.id, t.part_day, t.project_id, t.generator_id, t.scheduled_at, t.attempts, COALESCE(cardinality(t.tags), 0) = 0 AS untagged
), planned AS (
  INSERT INTO executions (id, part_day, trigger_id, project_id, attempt_number, triggered_by, status, planned_at, created_at, dispatched_at)
  SELECT ttr_uuidv7(), c.part_day, c.id, c.project_id, c.attempts, 'scheduler', 'planned', c.scheduled_at, clock_timestamp(),
         CASE WHEN c.untagged THEN clock_timestamp() END
  FROM claimed c
  RETURNING id, trigger_id, dispatched_at IS NOT NULL AS dispatched
)
SELECT p.id::text AS "executionId", c.id::text AS "triggerId", c.generator_id::text AS "generatorId", c.scheduled_at AS "scheduledAt", p.dispatched
FROM planned p JOIN claimed c ON c.id = p.trigger_id
ORDER BY c.scheduled_at, c.id
