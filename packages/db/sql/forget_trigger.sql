-- Remove one-shots whose /schedule calls answered 503 although their write
-- may have been committed (services/api/src/schedule/inserts.ts), unless
-- they have already been taken to be sent.
-- Params: $1 ids (uuid[]). Returns the ids removed.
DELETE FROM triggers WHERE id = ANY ($1::uuid[]) AND status = 'registered' AND generator_id IS NULL
RETURNING id::text AS id
