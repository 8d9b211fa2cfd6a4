-- A project's one-shot trigger or instance by ID, locked.
-- Params: $1 project_id, $2 id.
-- Found by ID alone, then kept if the project's (see session_list_executions.sql).
SELECT id, status::text AS status, generator_id AS "generatorId", custom_key AS "customKey", part_day::text AS "partDay"
FROM (SELECT id, status, generator_id, custom_key, project_id, part_day FROM triggers WHERE id = $2::uuid OFFSET 0) t
WHERE project_id = $1::uuid
FOR UPDATE
