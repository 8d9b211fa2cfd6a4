-- Serialize writers of one custom key in a project for the rest of the
-- transaction, so two /schedule calls with the same key cannot both create.
-- Params: $1 project_id, $2 custom_key.
SELECT pg_advisory_xact_lock(hashtextextended($1 || ':' || $2, 0))::text AS locked
