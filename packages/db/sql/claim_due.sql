-- Due triggers to promote, oldest first (a trigger is never sent before its
-- second, and due ones are taken oldest first in batches),
-- locked until the caller's transaction ends; SKIP LOCKED lets a standby
-- scheduler or an overlapping tick run the same statement safely.
-- Params: $1 now (timestamptz), $2 batch size.
-- Returns {id, partDay} of each claimed trigger, oldest first.
-- The sort key names triggers.id: a bare `id` would be the text column this
-- returns, an order triggers_due_idx cannot give, so each batch would read
-- and sort every due trigger (a 50,000 burst: about 25 ms per claim).
SELECT id::text AS id, part_day::text AS "partDay" FROM triggers
WHERE status = 'registered' AND scheduled_at <= $1
ORDER BY triggers.scheduled_at, triggers.id
LIMIT $2
FOR UPDATE SKIP LOCKED
