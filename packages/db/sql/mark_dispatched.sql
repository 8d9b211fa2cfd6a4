-- Record that planned attempts were admitted and handed to the queue.
-- Params: $1 execution ids (uuid[]), $2 the days they are stored under
-- (date[], any order), so that only those days' partitions are read.
-- Returns the ids marked.
UPDATE executions SET dispatched_at = clock_timestamp()
WHERE id = ANY ($1::uuid[]) AND part_day = ANY ($2::date[]) AND status = 'planned' AND dispatched_at IS NULL
RETURNING id::text
