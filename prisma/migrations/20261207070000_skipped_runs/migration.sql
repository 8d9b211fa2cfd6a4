-- A run of a recurring trigger cancelled on its own, by its instance's ID,
-- stays cancelled: the next instance is planned after the latest such run
-- (docs/concepts.md, recurring triggers). Null when no run is skipped; a new
-- cron expression or time zone clears it.
--
-- Upgrading: adding a nullable column rewrites nothing, so it is instant at
-- any size.

ALTER TABLE "generators" ADD COLUMN "skip_through" TIMESTAMPTZ(3);
