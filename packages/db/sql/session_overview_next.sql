-- A project's next due triggers, for the dashboard's overview
-- (docs/api/dashboard-api.md): registered one-shots and instances due at or
-- after $2, earliest first. Registered triggers due before $2 are overdue
-- ones the scheduler has not promoted yet.
-- Reads triggers_project_due_idx (project, scheduled_at, id) from $2 on,
-- in its order (triggers.id: a bare `id` would be the text column returned).
-- Params: $1 project_id, $2 from (timestamptz), $3 how many.
-- Returns {id, customKey, title, url, method, tags, scheduledAt, generatorId}.
SELECT id::text, custom_key AS "customKey", title, url, method, tags, scheduled_at AS "scheduledAt", generator_id::text AS "generatorId"
FROM triggers
WHERE project_id = $1::uuid AND status = 'registered' AND scheduled_at >= $2::timestamptz
ORDER BY triggers.scheduled_at, triggers.id
LIMIT $3
