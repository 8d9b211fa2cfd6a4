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
-- The execution's id is drawn while the trigger is updated, so the answer
-- comes from `claimed` alone. (Joining the inserted executions back to their
-- triggers let PostgreSQL pick a nested loop when the day's partition had no
-- statistics yet, as in a burst scheduled moments before it is due: a
-- million comparisons for a batch of 1,000, 127 ms instead of 36.) The
-- INSERT runs to completion although nothing reads it: PostgreSQL runs
-- every data-modifying WITH exactly once.
WITH claimed AS (
  UPDATE triggers t
  SET status = 'queued', attempts = t.attempts + 1, updated_at = clock_timestamp()
  WHERE t.id = ANY ($1::uuid[]) AND t.part_day = ANY ($2::date[]) AND t.status = 'registered'
  RETURNING ttr_uuidv7() AS execution_id, t.id, t.part_day, t.project_id, t.generator_id, t.scheduled_at, t.attempts, COALESCE(cardinality(t.tags), 0) = 0 AS untagged
), planned AS (
  INSERT INTO executions (id, part_day, trigger_id, project_id, attempt_number, triggered_by, status, planned_at, created_at, dispatched_at)
  SELECT c.execution_id, c.part_day, c.id, c.project_id, c.attempts, 'scheduler', 'planned', c.scheduled_at, clock_timestamp(),
         CASE WHEN c.untagged THEN clock_timestamp() END
  FROM claimed c
)
SELECT c.execution_id::text AS "executionId", c.part_day::text AS "partDay", c.id::text AS "triggerId", c.generator_id::text AS "generatorId", c.scheduled_at AS "scheduledAt", c.untagged AS dispatched
FROM claimed c
ORDER BY c.scheduled_at, c.id
