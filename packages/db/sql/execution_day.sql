-- The day an attempt is stored under, for a queue job that does not carry
-- it (one enqueued by a version before jobs named their day). Probes every
-- day partition's primary key: only for such jobs, never on the usual path.
-- Params: $1 execution id.
SELECT part_day::text AS "partDay" FROM executions WHERE id = $1::uuid
