-- Park due planned attempts under the tag whose policy held them back
-- (docs/api/tag-policies.md, when a limit is reached): they stay planned, and their
-- triggers keep their status (queued, or retrying).
-- Params: $1 execution ids (uuid[]), $2 the days they are stored under
-- (date[], any order), $3 the tag holding them.
-- Returns how many rows changed. (`id = ANY` keeps the primary-key lookup
-- whatever the planner thinks of a join with an unnest.)
UPDATE executions SET held_by = $3
WHERE id = ANY ($1::uuid[]) AND part_day = ANY ($2::date[]) AND status = 'planned' AND dispatched_at IS NULL
  AND held_by IS DISTINCT FROM $3
