-- Every status change of a trigger writes a new entry into each of its
-- indexes. Two of them are only ever searched for a value (an instance's
-- recurring trigger, a custom key), so rows without one need no entry:
-- one-shot triggers skip the first, keyless triggers the second. Hand-made
-- partial indexes (see packages/db/scripts/migration-diff.mjs), same names
-- and columns as before.

DROP INDEX "triggers_generator_idx";

-- instances of a recurring trigger by status
CREATE INDEX "triggers_generator_idx" ON "triggers"("generator_id", "status") WHERE "generator_id" IS NOT NULL;

DROP INDEX "triggers_project_key_idx";

-- a project's triggers with a custom key, newest first
CREATE INDEX "triggers_project_key_idx" ON "triggers"("project_id", "custom_key", "created_at" DESC) WHERE "custom_key" IS NOT NULL;
