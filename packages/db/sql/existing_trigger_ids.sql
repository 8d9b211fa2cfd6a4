-- Which of these trigger ids are stored: after a write whose outcome the
-- broken connection left unknown (services/api/src/schedule/inserts.ts).
-- Params: $1 ids (uuid[]).
SELECT id::text AS id FROM triggers WHERE id = ANY ($1::uuid[])
