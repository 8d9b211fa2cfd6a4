-- The day an attempt is stored under, for a queue job that does not carry
-- it (one enqueued by a version before jobs named their day), or for an
-- attempt or notification whose trigger a retention pass moved to a newer
-- day meanwhile. Probes every day partition's primary key: only for those,
-- never on the usual path.
-- Params: $1 execution id.
SELECT part_day::text AS "partDay" FROM executions WHERE id = $1::uuid
