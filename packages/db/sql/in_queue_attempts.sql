-- Planned attempts handed to the queue and not started, whose trigger still
-- waits for them, oldest due first, after the keyset ($3, $4): what the
-- queue should hold. Sent again whole when Redis may have lost its data
-- (flushed, restarted without persistence, a failed enqueue, a takeover),
-- except those a live queue job still carries.
-- Params: $1 dispatched before (timestamptz), $2 limit, $3 planned_at and
-- $4 id of the last row of the previous page (NULL for the first page).
SELECT e.id::text AS "executionId", e.part_day::text AS "partDay", e.planned_at AS "plannedAt"
FROM executions e JOIN triggers t ON t.id = e.trigger_id AND t.part_day = e.part_day
WHERE e.status = 'planned' AND e.dispatched_at < $1 AND t.status IN ('queued', 'retrying', 'skipped')
  AND ($3::timestamptz IS NULL OR (e.planned_at, e.id) > ($3::timestamptz, $4::uuid))
ORDER BY e.planned_at, e.id
LIMIT $2
