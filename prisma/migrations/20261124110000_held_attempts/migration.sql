-- Planned attempts held back by a tag policy are parked under the tag that
-- held them (docs/api/tag-policies.md, when a limit is reached): the scheduler's scan for due
-- attempts then never walks a held backlog, and held attempts are looked at
-- again per tag, oldest first. The two indexes are hand-made partial ones
-- (see packages/db/scripts/migration-diff.mjs), replacing the plain index
-- of due planned attempts.

-- AlterTable
ALTER TABLE "executions" ADD COLUMN "held_by" TEXT;

DROP INDEX "executions_planned_idx";

-- due attempts to admit, oldest first, held ones left out
CREATE INDEX "executions_dispatchable_idx" ON "executions"("planned_at", "id") WHERE "status" = 'planned' AND "dispatched_at" IS NULL AND "held_by" IS NULL;

-- held attempts by project and the tag that held them, oldest first
CREATE INDEX "executions_held_idx" ON "executions"("project_id", "held_by", "planned_at", "id") WHERE "status" = 'planned' AND "dispatched_at" IS NULL AND "held_by" IS NOT NULL;
