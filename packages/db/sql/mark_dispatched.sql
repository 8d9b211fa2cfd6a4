-- Record that planned attempts were admitted and handed to the queue.
-- Params: $1 execution ids (uuid[]). Returns the ids marked.
UPDATE executions SET dispatched_at = clock_timestamp()
WHERE id = ANY($1::uuid[]) AND status = 'planned' AND dispatched_at IS NULL
RETURNING id::text
