-- Cancel a pending one-shot or instance; its planned retry, if any, will
-- never be sent. The WHERE clause makes a lost race a no-op.
-- Params: $1 id, $2 project id (a row of another project is never touched).
-- Returns the id when cancelled.
WITH t AS (
  UPDATE triggers SET status = 'cancelled', updated_at = clock_timestamp()
  WHERE id = $1::uuid AND project_id = $2::uuid AND status IN ('registered', 'skipped', 'retrying')
  RETURNING id
), e AS (
  UPDATE executions SET status = 'cancelled'
  WHERE trigger_id IN (SELECT id FROM t) AND status = 'planned'
)
SELECT id FROM t
