// How long the migration to partitioned history takes on a database that
// already holds history: builds a scratch database at the schema before it,
// fills it with N triggers and N executions (generate_series), then times
// the migration alone. Usage: node test/bench/upgrade.mjs [N]  (default 5,000,000)
import { cpSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { applyMigrations } from "@ttr/db";
import { openBench, root } from "./lib/infra.mjs";
import { benchProject, pool } from "./lib/triggers.mjs";

const PARTITIONING = "20261125100000_partitioned_history";

export async function upgrade(ctx, n = 5_000_000) {
  // The bench template is fully migrated; start from an empty database instead.
  const database = await ctx.database();
  const db = pool(database.url, 1);
  try {
    await db.query("DROP SCHEMA public CASCADE; CREATE SCHEMA public");
    const all = path.join(root, "prisma", "migrations");
    const before = mkdtempSync(path.join(tmpdir(), "ttr-upgrade-"));
    for (const name of readdirSync(all)) if (name < PARTITIONING) cpSync(path.join(all, name), path.join(before, name), { recursive: true });
    await applyMigrations(database.url, { migrationsDir: before, log: () => {} });
    rmSync(before, { recursive: true, force: true });
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
    const r = await upgrade(ctx, Number(process.argv[2] ?? 5_000_000));
    console.log(`upgrade to partitioned history: ${r.triggers} triggers + ${r.executions} executions migrated in ${(r.migrateMs / 1000).toFixed(1)} s (filling took ${(r.fillMs / 1000).toFixed(0)} s)`);
  } finally {
    await ctx.close();
  }
}
