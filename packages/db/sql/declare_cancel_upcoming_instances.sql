-- Drop the upcoming (registered) instance of recurring triggers whose
-- instance is about to be re-created (docs/api/declare-and-bulk.md; a changed
-- recurring item in /declare or /bulk). Registered instances have no
-- execution yet.
-- Params: $1 project_id, $2 generator ids (uuid[]).
-- Returns the cancelled instance ids.
UPDATE triggers SET status = 'cancelled', updated_at = clock_timestamp()
WHERE generator_id = ANY($2::uuid[]) AND project_id = $1::uuid AND status = 'registered'
RETURNING id::text AS id
