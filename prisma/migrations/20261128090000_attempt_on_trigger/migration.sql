-- An attempt's start is recorded on its trigger only (docs/storage.md, what
-- a fire writes). The trigger turns running anyway; it now also holds the
-- running attempt's start time, timeout and deadline, and the execution
-- stays `planned` until the attempt ends. Reads show such an execution as
-- `started` (its trigger is running, on that attempt number). Before, the
-- start wrote a new version of the execution as well, with an entry in
-- each of its indexes: about 400 bytes of WAL per fire, a tenth of it.
--
-- Lost attempts (started, and still open past their deadline) are found
-- through triggers_lost_idx: running triggers by deadline. Executions
-- already `started` when this runs keep executions_reap_idx, and every
-- statement still reads them as before.
--
-- Upgrading: the three columns are added without rewriting a row; the
-- index reads every day partition of triggers once and holds writes to
-- them meanwhile (docs/retention.md, upgrading, has the time measured on
-- 10 million rows).

ALTER TABLE "triggers"
  ADD COLUMN "attempt_started_at" TIMESTAMPTZ(3),
  ADD COLUMN "attempt_timeout_seconds" INTEGER,
  ADD COLUMN "attempt_reap_after" TIMESTAMPTZ(3);

CREATE INDEX "triggers_lost_idx" ON "triggers"("attempt_reap_after") WHERE "status" = 'running';

-- Day partitions made from now on (ttr_ensure_partitions) place the three
-- columns before status, attempts and updated_at, so that everything a
-- fire changes still sits at the end of the row; those that exist have
-- them after (ADD COLUMN appends). Either way an update logs only the end
-- of the row (docs/storage.md, what a fire writes).
