-- The dashboard's overview (docs/dashboard.md, docs/api/dashboard-api.md)
-- reads a project's recent first attempts, its attempts in the queue and its
-- triggers due soon. Each of these reads gets a partial index keyed by
-- project, so that it costs what the rows it is about cost, whatever the
-- size of the history and of other projects' queues:
--
-- 1. first attempts by start time, for lateness (start minus due time);
--    planned attempts and retries and replays are not in it;
-- 2. planned attempts handed to the queue, by project (the index of all
--    in-queue attempts, executions_in_queue_idx, is keyed by dispatch time
--    for the scheduler);
-- 3. registered triggers by project and due time (triggers_due_idx is keyed
--    by due time alone, for promotion).
--
-- Upgrading a database with history builds each index in one pass over
-- its table, holding writes to it meanwhile.

-- first attempts that started, by project and start time
CREATE INDEX "executions_first_started_idx" ON "executions"("project_id", "started_at") WHERE "attempt_number" = 1 AND "started_at" IS NOT NULL;

-- attempts in the queue, not started, by project and due time
CREATE INDEX "executions_project_in_queue_idx" ON "executions"("project_id", "planned_at") WHERE "status" = 'planned' AND "dispatched_at" IS NOT NULL;

-- registered triggers by project and due time
CREATE INDEX "triggers_project_due_idx" ON "triggers"("project_id", "scheduled_at", "id") WHERE "status" = 'registered';
