-- Dead letters in bulk (docs/api/dead-letters.md). A discarded dead letter
-- keeps is_dead_letter (history stays as it happened) and gets discarded_at,
-- which takes it off the dead-letter list and out of bulk replays. A
-- nullable column without a default rewrites nothing on the partitioned
-- table. The partial index serves the bulk endpoints' selection by project
-- and completion time; discarded rows leave it.

-- AlterTable
ALTER TABLE "executions" ADD COLUMN     "discarded_at" TIMESTAMPTZ(3);

-- CreateIndex
CREATE INDEX "executions_dead_letter_open_idx" ON "executions"("project_id", "completed_at", "id") WHERE "is_dead_letter" AND "discarded_at" IS NULL;
