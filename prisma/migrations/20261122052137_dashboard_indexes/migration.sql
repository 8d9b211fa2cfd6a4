-- CreateIndex
CREATE INDEX "executions_project_completed_idx" ON "executions"("project_id", "completed_at");

-- CreateIndex
CREATE INDEX "generators_project_created_idx" ON "generators"("project_id", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "triggers_project_status_created_idx" ON "triggers"("project_id", "status", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "triggers_project_key_idx" ON "triggers"("project_id", "custom_key", "created_at" DESC);
