-- Park due planned attempts under the tag whose policy held them back
-- (SPEC §4 When a limit is reached 1): they stay planned, and their
-- triggers keep their status (queued, or retrying).
-- Params: $1 execution ids (uuid[]), $2 the holding tag of each (text[]).
-- Returns how many rows changed.
UPDATE executions e SET held_by = h.tag
FROM unnest($1::uuid[], $2::text[]) AS h(id, tag)
WHERE e.id = h.id AND e.status = 'planned' AND e.dispatched_at IS NULL
  AND e.held_by IS DISTINCT FROM h.tag
