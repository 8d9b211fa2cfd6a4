-- Runs of recurring triggers cancelled on their own, by their instances'
-- IDs (DELETE /cancel, the dashboard, a /bulk cancel by ID), stay
-- cancelled: each recurring trigger's next instance comes after the latest
-- of them (generators.skip_through; docs/concepts.md). Rows that are not
-- cancelled instances change nothing. The recurring triggers are locked in
-- id order, as the scheduler locks them.
-- Params: $1 trigger ids (uuid[]), $2 their days (date[]).
-- Returns the recurring triggers changed.
WITH c AS (
  SELECT generator_id, max(scheduled_at) AS last
  FROM triggers
  WHERE id = ANY ($1::uuid[]) AND part_day = ANY ($2::date[]) AND generator_id IS NOT NULL AND status = 'cancelled'
  GROUP BY generator_id
), locked AS (
  SELECT g.id FROM generators g JOIN c ON c.generator_id = g.id
  WHERE g.status = 'active'
  ORDER BY g.id
  FOR UPDATE OF g
)
UPDATE generators g SET skip_through = GREATEST(g.skip_through, c.last)
FROM c JOIN locked l ON l.id = c.generator_id
WHERE g.id = c.generator_id
RETURNING g.id::text AS id
