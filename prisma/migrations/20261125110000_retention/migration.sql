-- What retention needs to find, in an old partition, the few rows that must
-- stay (docs/retention.md), without reading the whole partition:
-- - triggers changed recently: a BRIN summary of updated_at (a few pages per
--   partition; old partitions' block ranges all end before the cutoff);
-- - attempts in flight: planned attempts already handed to the queue had no
--   index (the dispatchable and held indexes cover the others, the reap
--   index the started ones). The same index serves the periodic check for
--   dispatched attempts whose queue job was lost (stale_dispatched.sql).
CREATE INDEX "triggers_updated_brin" ON "triggers" USING BRIN ("updated_at");
CREATE INDEX "executions_in_queue_idx" ON "executions"("dispatched_at") WHERE "status" = 'planned' AND "dispatched_at" IS NOT NULL;

-- The cutoff a retention pass is applying: rows that reached a final status
-- before it may be removed at any moment, so nothing may bring them back
-- (a replay, a custom key reusing a skipped trigger). One row, id 1.
CREATE TABLE "retention_state" (
    "id" INTEGER NOT NULL,
    "cutoff" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "retention_state_pkey" PRIMARY KEY ("id")
);
