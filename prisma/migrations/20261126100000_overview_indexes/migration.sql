-- The dashboard's overview (docs/dashboard.md, docs/api/dashboard-api.md)
-- reads a project's attempts in the queue and its triggers due soon. Each
-- of these reads gets a partial index keyed by project, so that it costs
-- what the rows it is about cost, whatever the size of the history and of
-- other projects' queues (its lateness per minute reads attempts by
-- completion time, through executions_project_completed_idx like /stats):
--
-- 1. planned attempts handed to the queue, by project (the index of all
--    in-queue attempts, executions_in_queue_idx, is keyed by dispatch time
--    for the scheduler);
-- 2. registered triggers by project and due time (triggers_due_idx is keyed
--    by due time alone, for promotion).
--
-- Both hold rows only while they wait (a trigger until it is due, an attempt
-- until it starts), so they stay small. Upgrading a database with history
-- builds each index in one pass over its table, holding writes to it
-- meanwhile.

-- attempts in the queue, not started, by project and due time
CREATE INDEX "executions_project_in_queue_idx" ON "executions"("project_id", "planned_at") WHERE "status" = 'planned' AND "dispatched_at" IS NOT NULL;

-- registered triggers by project and due time
CREATE INDEX "triggers_project_due_idx" ON "triggers"("project_id", "scheduled_at", "id") WHERE "status" = 'registered';
