-- Cancel an active recurring trigger and its pending (registered) instance.
-- Queued and running instances are left to fire, past ones are kept
-- (docs/api/cancel.md).
-- Params: $1 id, $2 project id (a row of another project is never touched).
-- Returns the id when cancelled.
WITH g AS (
  UPDATE generators SET status = 'cancelled', updated_at = clock_timestamp()
  WHERE id = $1::uuid AND project_id = $2::uuid AND status = 'active'
  RETURNING id
), i AS (
  UPDATE triggers SET status = 'cancelled', updated_at = clock_timestamp()
  WHERE generator_id IN (SELECT id FROM g) AND status = 'registered'
)
SELECT id FROM g
