-- The dashboard's page of one recurring trigger's instances reads a range
-- of triggers_generator_idx per status, newest first
-- (session_list_instances.sql), so the index now ends with (created_at, id).
-- Before, that page was planned for its values on each call and read the
-- project's status ranges filtered by the recurring trigger, a cost that
-- grew with the days of history; now it keeps one plan and reads about a
-- page of index entries. The statements that look up instances by
-- recurring trigger and status read the same leading columns as before.
-- Only instances are in the index (generator_id IS NOT NULL): a one-shot
-- writes nothing to it.
--
-- Upgrading: the rebuild reads every trigger once and holds writes to them
-- meanwhile (docs/retention.md, upgrading, has the time measured on 10
-- million rows).

DROP INDEX "triggers_generator_idx";
CREATE INDEX "triggers_generator_idx" ON "triggers"("generator_id", "status", "created_at", "id") WHERE "generator_id" IS NOT NULL;
