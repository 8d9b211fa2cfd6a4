-- The kind and status of a project's trigger or recurring trigger by ID,
-- to explain why Replay now or Retry now cannot act (docs/api/dashboard-api.md).
-- Params: $1 project_id, $2 id.
-- Returns {kind, status}, or no row for an unknown or foreign ID.
-- Found by ID alone, then kept if the project's (see session_list_executions.sql).
SELECT 'job' AS kind, status::text AS status FROM (SELECT status, project_id FROM triggers WHERE id = $2::uuid OFFSET 0) t WHERE project_id = $1::uuid
UNION ALL
SELECT 'generator', status::text FROM generators WHERE id = $2::uuid AND project_id = $1::uuid
