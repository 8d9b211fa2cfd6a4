// Hand-made SQL. Prisma's schema (without the `partialIndexes` preview) cannot
// say `WHERE …` on an index, so schema.prisma holds a plain @@index under the
// same name and the migrations create the indexes in HAND_MADE_INDEXES by
// hand, as partial ones. Steps of the engine's diff that only drop or create
// an index of that list (matched by name) are tolerated: left out of new
// migrations and ignored by --check. (With the preview off, this engine
// ignores index predicates, so it only reports an index whose columns differ
// from the placeholder's, e.g. triggers_due_idx (scheduled_at) vs
// (scheduled_at, id); older engines dropped and re-created partial indexes.)
// In exchange `migration-diff.mjs --check` verifies, on a database built from
// the migrations, that each of these indexes exists with exactly the
// definition declared here, so the tolerance cannot hide a lost or altered
// index.

/**
 * Indexes whose partial form is written by hand in the migrations. Keep each
 * statement identical to the one in the migration that creates it.
 */
export const HAND_MADE_INDEXES = [
  {
    name: "triggers_generator_idx",
    sql: `CREATE INDEX "triggers_generator_idx" ON "triggers"("generator_id", "status", "created_at", "id") WHERE "generator_id" IS NOT NULL`,
  },
  {
    name: "triggers_project_key_idx",
    sql: `CREATE INDEX "triggers_project_key_idx" ON "triggers"("project_id", "custom_key", "created_at" DESC) WHERE "custom_key" IS NOT NULL`,
  },
  {
    name: "triggers_due_idx",
    sql: `CREATE INDEX "triggers_due_idx" ON "triggers"("scheduled_at", "id") WHERE "status" = 'registered'`,
  },
  {
    name: "triggers_pending_key_idx",
    sql: `CREATE INDEX "triggers_pending_key_idx" ON "triggers"("project_id", "custom_key") WHERE "status" IN ('registered', 'skipped', 'retrying') AND "custom_key" IS NOT NULL`,
  },
  {
    name: "generators_active_key_idx",
    sql: `CREATE INDEX "generators_active_key_idx" ON "generators"("project_id", "custom_key") WHERE "status" = 'active' AND "custom_key" IS NOT NULL`,
  },
  {
    name: "executions_dead_letter_idx",
    sql: `CREATE INDEX "executions_dead_letter_idx" ON "executions"("project_id", "created_at" DESC, "id" DESC) WHERE "is_dead_letter"`,
  },
  {
    name: "executions_dead_letter_open_idx",
    sql: `CREATE INDEX "executions_dead_letter_open_idx" ON "executions"("project_id", "completed_at", "id") WHERE "is_dead_letter" AND "discarded_at" IS NULL`,
  },
  {
    name: "executions_dispatchable_idx",
    sql: `CREATE INDEX "executions_dispatchable_idx" ON "executions"("planned_at", "id") WHERE "status" = 'planned' AND "dispatched_at" IS NULL AND "held_by" IS NULL`,
  },
  {
    name: "executions_held_idx",
    sql: `CREATE INDEX "executions_held_idx" ON "executions"("project_id", "held_by", "planned_at", "id") WHERE "status" = 'planned' AND "dispatched_at" IS NULL AND "held_by" IS NOT NULL`,
  },
  {
    name: "executions_in_queue_idx",
    sql: `CREATE INDEX "executions_in_queue_idx" ON "executions"("dispatched_at") WHERE "status" = 'planned' AND "dispatched_at" IS NOT NULL`,
  },
  {
    name: "executions_reap_idx",
    sql: `CREATE INDEX "executions_reap_idx" ON "executions"("reap_after") WHERE "status" = 'started'`,
  },
  {
    name: "triggers_lost_idx",
    sql: `CREATE INDEX "triggers_lost_idx" ON "triggers"("attempt_reap_after") WHERE "status" = 'running'`,
  },
  {
    name: "executions_project_in_queue_idx",
    sql: `CREATE INDEX "executions_project_in_queue_idx" ON "executions"("project_id", "planned_at") WHERE "status" = 'planned' AND "dispatched_at" IS NOT NULL`,
  },
  {
    name: "triggers_project_due_idx",
    sql: `CREATE INDEX "triggers_project_due_idx" ON "triggers"("project_id", "scheduled_at", "id") WHERE "status" = 'registered'`,
  },
  {
    name: "triggers_pending_tags_idx",
    sql: `CREATE INDEX "triggers_pending_tags_idx" ON "triggers" USING GIN ("tags") WHERE "status" IN ('registered', 'skipped', 'retrying', 'queued') AND cardinality("tags") > 0`,
  },
  {
    name: "triggers_one_pending_instance",
    sql: `CREATE UNIQUE INDEX "triggers_one_pending_instance" ON "triggers"("generator_id", "part_day") WHERE "status" = 'registered' AND "generator_id" IS NOT NULL`,
  },
];


/** Splits an engine script into its steps ("-- Header\nSQL;" blocks). */
export function splitSteps(script) {
  return script
    .split(/\n\s*\n(?=--|\/\*)/)
    .map((s) => s.trim())
    .filter(Boolean);
}

const stripComments = (sql) =>
  sql
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .split("\n")
    .filter((l) => !l.trim().startsWith("--"))
    .join("\n")
    .trim();

/** The hand-made index a step only drops or (re)creates, if any. */
export function handMadeIndexOf(step, names) {
  const sql = stripComments(step);
  const m = /^(?:DROP INDEX(?: IF EXISTS)?|CREATE (?:UNIQUE )?INDEX(?: IF NOT EXISTS)?)\s+(?:"public"\.)?"([^"]+)"[^;]*;?$/s.exec(sql);
  return m && names.has(m[1]) ? m[1] : null;
}

/** Splits a diff into the steps to keep and the tolerated hand-made ones. */
export function separateHandMade(script, handMade = HAND_MADE_INDEXES) {
  const names = new Set(handMade.map((i) => i.name));
  const kept = [];
  const tolerated = [];
  for (const step of splitSteps(script)) {
    if (!stripComments(step)) continue; // comment-only, e.g. "This is an empty migration."
    (handMadeIndexOf(step, names) ? tolerated : kept).push(step);
  }
  return { kept, tolerated };
}
