-- Promote the triggers claim_due.sql locked: registered → queued, with their
-- attempt planned. A trigger no longer registered is left alone.
-- The rows are named by id and by day, so that a prepared (generic) plan
-- reads only the day partitions named, through their primary key, however
-- many days the history holds.
-- An attempt of a trigger without tags has no policy to wait for: it is
-- marked dispatched here and goes to the queue at once, sparing it
-- select_dispatchable and mark_dispatched.
-- Params: $1 trigger ids (uuid[]), $2 their days (date[], any order).
-- Returns one row per claimed trigger with its planned execution (and the
-- day both are stored under), and whether that attempt is already dispatched.
WITH claimed AS (
  UPDATE triggers t
  SET status = 'queued', attempts = t.attempts + 1, updated_at = clock_timestamp()
  WHERE t.id = ANY ($1::uuid[]) AND t.part_day = ANY ($2::date[]) AND t.status = 'registered'
  RETURNING t.id, t.part_day, t.project_id, t.generator_id, t.scheduled_at, t.attempts, COALESCE(cardinality(t.tags), 0) = 0 AS untagged
), planned AS (
  INSERT INTO executions (id, part_day, trigger_id, project_id, attempt_number, triggered_by, status, planned_at, created_at, dispatched_at)
  SELECT ttr_uuidv7(), c.part_day, c.id, c.project_id, c.attempts, 'scheduler', 'planned', c.scheduled_at, clock_timestamp(),
         CASE WHEN c.untagged THEN clock_timestamp() END
  FROM claimed c
  RETURNING id, trigger_id, dispatched_at IS NOT NULL AS dispatched
)
SELECT p.id::text AS "executionId", c.part_day::text AS "partDay", c.id::text AS "triggerId", c.generator_id::text AS "generatorId", c.scheduled_at AS "scheduledAt", p.dispatched
FROM planned p JOIN claimed c ON c.id = p.trigger_id
ORDER BY c.scheduled_at, c.id
