-- A project's one-shot trigger or instance by ID, locked.
-- Params: $1 project_id, $2 id.
-- Its day is found by ID alone (a subquery behind OFFSET 0, see
-- session_list_executions.sql), kept only if the row is the project's, and
-- only then is the row read and locked by its key: another project's row
-- is never locked, nor waited for while its own work holds it (the wait
-- would tell the caller that the ID exists).
SELECT id, status::text AS status, generator_id AS "generatorId", custom_key AS "customKey", part_day::text AS "partDay"
FROM triggers
WHERE id = $2::uuid
  AND part_day = (
    SELECT part_day FROM (SELECT part_day, project_id FROM triggers WHERE id = $2::uuid OFFSET 0) found
    WHERE project_id = $1::uuid
  )
FOR UPDATE
