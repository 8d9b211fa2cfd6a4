-- Cancel a pending one-shot or instance by its ID; its planned retry, if
-- any, will never be sent. The WHERE clause makes a lost race a no-op.
-- An instance's run stays cancelled: its recurring trigger's next instance
-- comes after it (generators.skip_through; docs/concepts.md).
-- Params: $1 id, $2 project id (a row of another project is never touched).
-- Returns the id when cancelled.
WITH t AS (
  UPDATE triggers SET status = 'cancelled', updated_at = clock_timestamp()
  WHERE id = $1::uuid AND project_id = $2::uuid AND status IN ('registered', 'skipped', 'retrying')
  RETURNING id, generator_id, scheduled_at
), e AS (
  UPDATE executions SET status = 'cancelled'
  WHERE trigger_id IN (SELECT id FROM t) AND status = 'planned'
), g AS (
  UPDATE generators SET skip_through = GREATEST(skip_through, t.scheduled_at)
  FROM t
  WHERE generators.id = t.generator_id AND generators.status = 'active'
)
SELECT id FROM t
