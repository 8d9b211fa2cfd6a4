-- A project's one-shot trigger or instance by ID, locked.
-- Params: $1 project_id, $2 id.
SELECT id, status::text AS status, generator_id AS "generatorId", custom_key AS "customKey"
FROM triggers
WHERE project_id = $1::uuid AND id = $2::uuid
FOR UPDATE
