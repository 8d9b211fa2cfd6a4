// How long a migration takes on a database that already holds history:
// builds a scratch database at the schema before it, fills it with N
// triggers and N executions (generate_series), then times the remaining
// migrations alone.
// Usage: node test/bench/upgrade.mjs [N] [migration]  (default 5,000,000 and
// the migration to partitioned history). A later migration is timed on a
// database seeded as large-state seeds its large one: N completed one-shots
// with an execution each plus N/10 pending ones.
import { cpSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { applyMigrations } from "@ttr/db";
import { openBench, root } from "./lib/infra.mjs";
import { seedLargeState } from "./lib/large-state-seed.mjs";
import { benchProject, pool } from "./lib/triggers.mjs";

const PARTITIONING = "20261125100000_partitioned_history";

/** A scratch database of the run at the schema before `migration` (its name). */
async function databaseBefore(db, url, migration) {
  await db.query("DROP SCHEMA public CASCADE; CREATE SCHEMA public");
  const all = path.join(root, "prisma", "migrations");
  const before = mkdtempSync(path.join(tmpdir(), "ttr-upgrade-"));
  for (const name of readdirSync(all)) if (name < migration) cpSync(path.join(all, name), path.join(before, name), { recursive: true });
  await applyMigrations(url, { migrationsDir: before, log: () => {} });
  rmSync(before, { recursive: true, force: true });
}

/** Times the migrations from `migration` on over n history rows (a migration after partitioning). */
export async function upgradeFrom(ctx, migration, n, log = () => {}) {
  const database = await ctx.database();
  const db = pool(database.url, 1);
  try {
    await databaseBefore(db, database.url, migration);
    const { projectId } = await benchProject(database.url);
    const { projectId: other } = await benchProject(database.url);
    const seed = await seedLargeState(database.url, { projects: [projectId, other], pending: Math.round(n / 10), history: n, old: 0, log });
    await db.query("CHECKPOINT");
    const t1 = performance.now();
    const { applied } = await applyMigrations(database.url, { log: () => {} });
    const migrate = performance.now() - t1;
    return { n, applied, seedS: seed.totalS, migrateMs: migrate };
  } finally {
    await db.end();
    await database.drop();
  }
}

export async function upgrade(ctx, n = 5_000_000) {
  // The bench template is fully migrated; start from an empty database instead.
  const database = await ctx.database();
  const db = pool(database.url, 1);
  try {
    await databaseBefore(db, database.url, PARTITIONING);
    const { projectId } = await benchProject(database.url);
    const t0 = performance.now();
    await db.query(
      `INSERT INTO triggers (id, project_id, status, url, method, headers, tags, scheduled_at, attempts, created_at, updated_at)
       SELECT gen_random_uuid(), $1::uuid, 'completed', 'http://127.0.0.1:9/t/' || i, 'GET', '[]', '{}', now() - interval '1 second' * i, 1, now(), now()
       FROM generate_series(1, $2::int) AS i`,
      [projectId, n],
    );
    await db.query(
      `INSERT INTO executions (id, trigger_id, project_id, attempt_number, triggered_by, status, planned_at, started_at, completed_at, response_status, response_body, response_size)
       SELECT gen_random_uuid(), id, project_id, 1, 'scheduler', 'complete', scheduled_at, scheduled_at, scheduled_at, 200, 'ok', 2 FROM triggers`,
    );
    await db.query("VACUUM ANALYZE triggers, executions");
    const fill = performance.now() - t0;
    const t1 = performance.now();
    await applyMigrations(database.url, { log: () => {} });
    const migrate = performance.now() - t1;
    const { rows } = await db.query("SELECT (SELECT count(*) FROM triggers)::int AS t, (SELECT count(*) FROM executions)::int AS e");
    return { n, fillMs: fill, migrateMs: migrate, triggers: rows[0].t, executions: rows[0].e };
  } finally {
    await db.end();
    await database.drop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const ctx = await openBench();
  try {
    const n = Number(process.argv[2] ?? 5_000_000);
    const migration = process.argv[3] ?? PARTITIONING;
    if (migration === PARTITIONING) {
      const r = await upgrade(ctx, n);
      console.log(`upgrade to partitioned history: ${r.triggers} triggers + ${r.executions} executions migrated in ${(r.migrateMs / 1000).toFixed(1)} s (filling took ${(r.fillMs / 1000).toFixed(0)} s)`);
    } else {
      const r = await upgradeFrom(ctx, migration, n, (m) => process.stderr.write(`${m}\n`));
      console.log(`${r.applied.join(", ")}: applied over ${n} history rows (+ ${Math.round(n / 10)} pending) in ${(r.migrateMs / 1000).toFixed(1)} s (seeding took ${r.seedS.toFixed(0)} s)`);
    }
  } finally {
    await ctx.close();
  }
}
