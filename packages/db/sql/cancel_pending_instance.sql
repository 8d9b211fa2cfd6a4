-- Drop a recurring trigger's upcoming (registered) instance before a new
-- one is created from its changed definition.
-- Params: $1 generator_id, $2 project id (a row of another project is never
-- touched). Returns the cancelled instance ids.
UPDATE triggers SET status = 'cancelled', updated_at = clock_timestamp()
WHERE generator_id = $1::uuid AND project_id = $2::uuid AND status = 'registered'
RETURNING id
