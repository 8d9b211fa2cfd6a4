-- Record how a dead letter's notification went (docs/delivery-extras.md):
-- after each try `retrying`, then `sent` or `failed`, with the tries made so
-- far and the last failure. Only a dead letter carries one.
-- Params: $1 execution id, $2 the day it is stored under (date), $3 status,
-- $4 tries made, $5 last error or null.
-- Returns the row changed: none when it is not stored under that day (a
-- retention pass moved its trigger to a newer day meanwhile, or removed it).
UPDATE executions
SET notify_status = $3, notify_attempts = $4::int, notify_error = $5
WHERE id = $1::uuid AND part_day = $2::date AND is_dead_letter
RETURNING id
