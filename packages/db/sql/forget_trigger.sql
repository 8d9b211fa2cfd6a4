-- Remove a one-shot whose /schedule call answered 503 although its write
-- may have been committed (services/api/src/schedule/inserts.ts), unless it
-- has already been taken to be sent.
-- Params: $1 id.
DELETE FROM triggers WHERE id = $1::uuid AND status = 'registered' AND generator_id IS NULL
