-- The active recurring triggers of instances just cancelled by their own
-- IDs (DELETE /cancel, the dashboard, a /bulk cancel by ID), with what the
-- run those cancels skip is worked out from (skipThroughOnCancel in
-- @ttr/core): the schedule, the runs already skipped and the latest time
-- among those instances. skip_cancelled_runs.sql stores the result. Rows
-- that are not cancelled instances are left out. The recurring triggers
-- are locked in id order, as the scheduler locks them.
-- Params: $1 trigger ids (uuid[]), $2 their days (date[]).
WITH c AS (
  SELECT generator_id, max(scheduled_at) AS last
  FROM triggers
  WHERE id = ANY ($1::uuid[]) AND part_day = ANY ($2::date[]) AND generator_id IS NOT NULL AND status = 'cancelled'
  GROUP BY generator_id
), locked AS (
  SELECT g.id, g.cron_expr, g.tz, g.skip_through FROM generators g JOIN c ON c.generator_id = g.id
  WHERE g.status = 'active'
  ORDER BY g.id
  FOR UPDATE OF g
)
SELECT l.id::text, l.cron_expr AS "cronExpr", l.tz, l.skip_through AS "skipThrough", c.last AS "instanceAt"
FROM locked l JOIN c ON c.generator_id = l.id
ORDER BY l.id
