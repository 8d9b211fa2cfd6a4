-- Scheduler leadership as a lease with an epoch (RELIABILITY.md,
-- "Leadership").
--
-- One row (id 1). The active scheduler holds it until `expires_at` and
-- renews it every second from one connection, whose server process id is
-- `backend_pid`. A standby takes it over when it has expired, or at once
-- when that connection no longer exists (the holder died). Each takeover
-- increments `epoch`; every transaction of the active scheduler first
-- checks that the epoch is still its own and the lease unexpired, and keeps
-- a key-share lock on this row until it ends, so a replica frozen or cut
-- off past its lease cannot commit anything once it wakes up (fencing).
--
-- `epoch` is unique on purpose: an UPDATE that changes a unique column
-- needs the row's strongest lock, which waits for those key-share locks,
-- so no takeover commits while a fenced transaction runs; the renewals,
-- which change only `expires_at`, do not wait for them.
--
-- A small table: no history, nothing to migrate, no downtime.

CREATE TABLE "scheduler_lease" (
    "id" INTEGER NOT NULL,
    "holder" TEXT NOT NULL,
    "epoch" BIGINT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "backend_pid" INTEGER NOT NULL,

    CONSTRAINT "scheduler_lease_pkey" PRIMARY KEY ("id")
);

CREATE UNIQUE INDEX "scheduler_lease_epoch_key" ON "scheduler_lease"("epoch");

INSERT INTO "scheduler_lease" ("id", "holder", "epoch", "expires_at", "backend_pid") VALUES (1, '', 0, '1970-01-01T00:00:00Z', 0);
