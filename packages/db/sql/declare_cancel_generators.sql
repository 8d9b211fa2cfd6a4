-- Cancel active recurring triggers for /declare and /bulk, with their
-- upcoming (registered) instance. With $3 true (/declare, docs/concepts.md
-- recurring trigger states, docs/api/declare-and-bulk.md) their skipped, retrying and queued
-- instances are cancelled too, and any planned execution of those; with
-- false (/bulk by ID or key) waiting instances still fire.
-- Params: $1 project_id, $2 ids (uuid[]), $3 with waiting instances (boolean).
-- Returns the ids cancelled.
WITH g AS (
  UPDATE generators SET status = 'cancelled', updated_at = clock_timestamp()
  WHERE id = ANY($2::uuid[]) AND project_id = $1::uuid AND status = 'active'
  RETURNING id
), i AS (
  UPDATE triggers SET status = 'cancelled', updated_at = clock_timestamp()
  WHERE generator_id IN (SELECT id FROM g)
    AND (status = 'registered' OR ($3::boolean AND status IN ('skipped', 'retrying', 'queued')))
  RETURNING id
), e AS (
  UPDATE executions SET status = 'cancelled'
  WHERE trigger_id IN (SELECT id FROM i) AND status = 'planned'
)
SELECT id::text AS id FROM g
