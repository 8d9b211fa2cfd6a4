-- Claim due triggers, oldest first: registered → queued, with their attempt
-- planned (SPEC §3; SPEC §1 firing precision 2–3). SKIP LOCKED lets a
-- standby scheduler or an overlapping tick run the same statement safely.
-- Params: $1 now (timestamptz), $2 batch size.
-- Returns one row per claimed trigger with its planned execution.
WITH due AS (
  SELECT id FROM triggers
  WHERE status = 'registered' AND scheduled_at <= $1
  ORDER BY scheduled_at, id
  LIMIT $2
  FOR UPDATE SKIP LOCKED
), claimed AS (
  UPDATE triggers t
  SET status = 'queued', attempts = t.attempts + 1, updated_at = clock_timestamp()
  FROM due WHERE t.id = due.id
  RETURNING t.id, t.project_id, t.generator_id, t.scheduled_at, t.attempts
), planned AS (
  INSERT INTO executions (id, trigger_id, project_id, attempt_number, triggered_by, status, planned_at, created_at)
  SELECT gen_random_uuid(), c.id, c.project_id, c.attempts, 'scheduler', 'planned', c.scheduled_at, clock_timestamp()
  FROM claimed c
  RETURNING id, trigger_id
)
SELECT p.id::text AS "executionId", c.id::text AS "triggerId", c.generator_id::text AS "generatorId", c.scheduled_at AS "scheduledAt"
FROM planned p JOIN claimed c ON c.id = p.trigger_id
ORDER BY c.scheduled_at, c.id
