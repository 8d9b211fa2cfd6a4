-- The project and tags of an attempt's trigger, and the attempt's status
-- (`started` for a planned one its trigger is running: start_attempts.sql).
-- Params: $1 execution id, $2 the day it is stored under.
SELECT t.project_id::text AS "projectId", t.tags,
       CASE WHEN e.status = 'planned' AND t.status = 'running' AND t.attempts = e.attempt_number THEN 'started' ELSE e.status::text END AS status
FROM executions e JOIN triggers t ON t.id = e.trigger_id AND t.part_day = e.part_day
WHERE e.id = $1::uuid AND e.part_day = $2::date
