-- A dashboard user and their project, to check a sign-in (docs/api/dashboard-api.md).
-- Params: $1 email, already lowercased (users are stored lowercased).
-- Returns the user with the password hash, or no row.
SELECT u.id::text AS id, u.email, u.password_hash AS "passwordHash",
       p.id::text AS "projectId", p.name AS "projectName"
FROM users u
JOIN projects p ON p.id = u.project_id
WHERE u.email = $1
