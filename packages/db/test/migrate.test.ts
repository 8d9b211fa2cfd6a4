// applyMigrations (plain pg) against real PostgreSQL, checked against Prisma's
// own schema engine (the WebAssembly build, as `prisma migrate deploy` would
// see the result), plus the drift check of scripts/migration-diff.mjs.
// Every database made here is a scratch database dropped at the end.
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { appendFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { createDb } from "../src/client.js";
import { withPgClient } from "../src/pool.js";
import { applyMigrations, createDatabaseIfMissing, migrationChecksum, readMigrations } from "../src/migrate.js";
import {
  HAND_MADE_INDEXES,
  openSchemaEngine,
  readMigrationsList,
  withDatabase,
} from "../scripts/migration-diff.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "..", "..", "..");
const migrationsDir = path.join(root, "prisma", "migrations");
const diffScript = path.join(root, "packages", "db", "scripts", "migration-diff.mjs");

function serverUrl(): string {
  if (process.env.TTR_TEST_PG_SERVER) return process.env.TTR_TEST_PG_SERVER;
  if (process.env.DATABASE_URL) return withDatabase(process.env.DATABASE_URL, "postgres");
  return "postgresql://postgres@127.0.0.1:5432";
}
const server = serverUrl();
// Under the suite's global setup, names carry the run's prefix (its teardown
// drops leftovers); run alone, they start with ttr_helper_.
const prefix = process.env.TTR_TEST_PREFIX ? `${process.env.TTR_TEST_PREFIX}_mig_` : "ttr_helper_mig_";

const created: string[] = [];
const tempDirs: string[] = [];

const withClient = <T>(url: string, fn: (c: pg.Client) => Promise<T>) => withPgClient(url, fn);

async function scratchDatabase(): Promise<string> {
  const name = `${prefix}${randomBytes(4).toString("hex")}`;
  const url = withDatabase(server, name);
  created.push(name);
  expect(await createDatabaseIfMissing(url)).toBe(true);
  expect(await createDatabaseIfMissing(url)).toBe(false);
  return url;
}

function firstMigrationName(dir: string): string {
  const first = readMigrations(dir)[0];
  if (!first) throw new Error(`no migrations in ${dir}`);
  return first.name;
}

function copyOfMigrations(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "ttr-migrations-"));
  tempDirs.push(dir);
  cpSync(migrationsDir, dir, { recursive: true });
  return dir;
}

type Row = { id: string; migration_name: string; checksum: string; finished_at: Date | null; rolled_back_at: Date | null; logs: string | null; applied_steps_count: number };
const migrationRows = (url: string) =>
  withClient(url, async (c) => (await c.query<Row>("SELECT * FROM _prisma_migrations ORDER BY migration_name")).rows);

afterAll(async () => {
  await withClient(withDatabase(server, "postgres"), async (c) => {
    for (const name of created) await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  });
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

describe("applyMigrations", () => {
  const files = readMigrations(migrationsDir);
  let url = "";

  it("applies every migration to a fresh database and records it as Prisma does", async () => {
    url = await scratchDatabase();
    const { applied } = await applyMigrations(url);
    expect(applied).toEqual(files.map((f) => f.name));
    expect(applied[0]).toMatch(/^\d{14}_init$/);

    const tables = await withClient(url, async (c) =>
      (await c.query<{ tablename: string }>("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")).rows.map((r) => r.tablename),
    );
    for (const t of ["projects", "project_usage", "api_keys", "users", "sessions", "triggers", "generators", "executions", "tag_policies", "_prisma_migrations"]) {
      expect(tables).toContain(t);
    }

    const rows = await migrationRows(url);
    expect(rows.map((r) => r.migration_name)).toEqual(applied);
    for (const row of rows) {
      const bytes = readFileSync(path.join(migrationsDir, row.migration_name, "migration.sql"));
      expect(row.checksum).toBe(migrationChecksum(bytes));
      expect(row.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(row.finished_at).toBeInstanceOf(Date);
      expect(row.rolled_back_at).toBeNull();
      expect(row.logs).toBeNull();
      expect(row.applied_steps_count).toBe(1);
    }
  });

  it("creates the hand-made indexes as partial indexes", async () => {
    const defs = await withClient(url, async (c) =>
      (await c.query<{ indexname: string; indexdef: string }>("SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public'")).rows,
    );
    const byName = new Map(defs.map((d) => [d.indexname, d.indexdef]));
    for (const name of ["triggers_due_idx", "triggers_one_pending_instance", "triggers_pending_key_idx", "generators_active_key_idx", "executions_dead_letter_idx", "executions_dispatchable_idx", "executions_held_idx", "executions_in_queue_idx", "executions_reap_idx", "executions_dead_letter_open_idx", "triggers_generator_idx", "triggers_project_key_idx", "triggers_pending_tags_idx", "executions_project_in_queue_idx", "triggers_project_due_idx", "triggers_lost_idx"]) {
      expect(byName.get(name), name).toContain(" WHERE ");
    }
    expect(byName.get("triggers_due_idx")).toContain("(scheduled_at, id)");
    // untagged triggers take no entry (fewer index writes per fire)
    expect(byName.get("triggers_pending_tags_idx")).toContain("cardinality(tags) > 0");
    expect(HAND_MADE_INDEXES.map((i: { name: string }) => i.name).sort()).toEqual(
      ["triggers_due_idx", "triggers_one_pending_instance", "triggers_pending_key_idx", "generators_active_key_idx", "executions_dead_letter_idx", "executions_dispatchable_idx", "executions_held_idx", "executions_in_queue_idx", "executions_reap_idx", "executions_dead_letter_open_idx", "triggers_generator_idx", "triggers_project_key_idx", "triggers_pending_tags_idx", "executions_project_in_queue_idx", "triggers_project_due_idx", "triggers_lost_idx"].sort(),
    );
  });

  it("does nothing when applied again", async () => {
    const before = await migrationRows(url);
    expect((await applyMigrations(url)).applied).toEqual([]);
    expect(await migrationRows(url)).toEqual(before);
  });

  it("refuses a URL naming a schema other than public, which the services would not use, and changes nothing", async () => {
    const before = await migrationRows(url);
    const other = new URL(url);
    other.searchParams.set("schema", "tenant_a");
    await expect(applyMigrations(other.toString())).rejects.toThrow("DATABASE_URL has schema=tenant_a: ttr keeps its tables in the public schema; give it a database of its own instead");
    expect(await migrationRows(url)).toEqual(before);
  });

  it("leaves nothing for Prisma's schema engine to apply (what `prisma migrate deploy` sees)", async () => {
    const session = await openSchemaEngine({ databaseUrl: url, scratchPrefix: prefix });
    try {
      const list = readMigrationsList(migrationsDir);
      const diagnosis = await session.engine.diagnoseMigrationHistory({ migrationsList: list, optInToShadowDatabase: false, filters: { externalTables: [], externalEnums: [] } });
      expect(diagnosis).toMatchObject({ history: null, failedMigrationNames: [], editedMigrationNames: [], hasMigrationsTable: true });
      const result = await session.engine.applyMigrations({ migrationsList: list, filters: { externalTables: [], externalEnums: [] } });
      expect(result.appliedMigrationNames).toEqual([]);
    } finally {
      await session.close();
    }
  });

  it("treats migrations applied by Prisma's schema engine as applied", async () => {
    const other = await scratchDatabase();
    const session = await openSchemaEngine({ databaseUrl: other, scratchPrefix: prefix });
    try {
      const result = await session.engine.applyMigrations({ migrationsList: readMigrationsList(migrationsDir), filters: { externalTables: [], externalEnums: [] } });
      expect(result.appliedMigrationNames).toEqual(files.map((f) => f.name));
    } finally {
      await session.close();
    }
    expect((await applyMigrations(other)).applied).toEqual([]);
    const [ours, prismas] = [await migrationRows(url), await migrationRows(other)];
    const comparable = (rows: Row[]) => rows.map((r) => ({ name: r.migration_name, checksum: r.checksum, steps: r.applied_steps_count, logs: r.logs, done: r.finished_at !== null }));
    expect(comparable(ours)).toEqual(comparable(prismas));
  });

  it("lets only one of two concurrent runs apply the migrations", async () => {
    const fresh = await scratchDatabase();
    const results = await Promise.all([applyMigrations(fresh), applyMigrations(fresh)]);
    expect(results.flatMap((r) => r.applied).sort()).toEqual(files.map((f) => f.name));
    expect((await migrationRows(fresh)).length).toBe(files.length);
  });

  it("waits for Prisma's advisory lock and gives up after the timeout", async () => {
    const fresh = await scratchDatabase();
    const holder = new pg.Client({ connectionString: fresh });
    await holder.connect();
    try {
      await holder.query("SELECT pg_advisory_lock(72707369)");
      await expect(applyMigrations(fresh, { lockTimeoutMs: 300 })).rejects.toThrow(/timed out .* migration lock/);
      const pending = applyMigrations(fresh, { lockTimeoutMs: 10_000 });
      await new Promise((r) => setTimeout(r, 300));
      await holder.query("SELECT pg_advisory_unlock(72707369)");
      expect((await pending).applied).toEqual(files.map((f) => f.name));
    } finally {
      await holder.end();
    }
  });

  it("gives a schema the generated Prisma client can use", async () => {
    const db = createDb(url, { max: 1 });
    try {
      const project = await db.project.create({ data: { name: "migrate-test", monthlyQuota: 10 } });
      await db.trigger.create({
        data: { projectId: project.id, status: "registered", url: "http://127.0.0.1/", method: "POST", headers: [], scheduledAt: new Date(), tags: ["a"] },
      });
      expect(await db.trigger.count({ where: { projectId: project.id, status: "registered" } })).toBe(1);
    } finally {
      await db.$disconnect();
    }
  });

  it("takes a database that applied an earlier text of a migration edited afterwards", async () => {
    const fresh = await scratchDatabase();
    await applyMigrations(fresh);
    const c = new pg.Client({ connectionString: fresh });
    await c.connect();
    try {
      // as a database migrated by a version from before the edit of 20261124110000_held_attempts has it
      await c.query("UPDATE _prisma_migrations SET checksum = $1 WHERE migration_name = $2", ["7feaab8c55aa3e9099ffde9b28b5753ec851b326e80551ae55be9d257603344c", "20261124110000_held_attempts"]);
      await expect(applyMigrations(fresh)).resolves.toMatchObject({ applied: [] });
      await c.query("UPDATE _prisma_migrations SET checksum = $1 WHERE migration_name = $2", ["0".repeat(64), "20261124110000_held_attempts"]);
      await expect(applyMigrations(fresh)).rejects.toThrow(/changed after being applied: 20261124110000_held_attempts/);
    } finally {
      await c.end();
    }
  });

  it("refuses an applied migration whose file changed", async () => {
    const dir = copyOfMigrations();
    const fresh = await scratchDatabase();
    await applyMigrations(fresh, { migrationsDir: dir });
    appendFileSync(path.join(dir, firstMigrationName(dir), "migration.sql"), "\n-- edited after the fact\n");
    await expect(applyMigrations(fresh, { migrationsDir: dir })).rejects.toThrow(/changed after being applied: \d{14}_init/);
  });

  it("accepts the same file with other line endings, as Prisma does", async () => {
    const dir = copyOfMigrations();
    const fresh = await scratchDatabase();
    await applyMigrations(fresh, { migrationsDir: dir });
    const file = path.join(dir, firstMigrationName(dir), "migration.sql");
    writeFileSync(file, readFileSync(file, "utf8").replaceAll("\n", "\r\n"));
    expect((await applyMigrations(fresh, { migrationsDir: dir })).applied).toEqual([]);
  });

  it("refuses to run while a migration is recorded as failed", async () => {
    const fresh = await scratchDatabase();
    await applyMigrations(fresh);
    await withClient(fresh, (c) =>
      c.query("INSERT INTO _prisma_migrations (id, checksum, migration_name, logs) VALUES ($1, $2, $3, $4)", [
        "00000000-0000-4000-8000-000000000000",
        "0".repeat(64),
        "29991231000000_broken",
        "ERROR: boom",
      ]),
    );
    await expect(applyMigrations(fresh)).rejects.toThrow(/failed migrations.*\n.*29991231000000_broken.*failed with the following logs:\nERROR: boom/);
  });

  it("rolls a failing migration back entirely and records nothing", async () => {
    const dir = copyOfMigrations();
    const fresh = await scratchDatabase();
    await applyMigrations(fresh, { migrationsDir: dir });
    mkdirSync(path.join(dir, "29991231000000_bad"));
    writeFileSync(path.join(dir, "29991231000000_bad", "migration.sql"), 'CREATE TABLE "half_done" (id int);\nSELECT * FROM "no_such_table";\n');
    await expect(applyMigrations(fresh, { migrationsDir: dir })).rejects.toThrow(/29991231000000_bad failed and was rolled back: .*no_such_table/);
    expect((await migrationRows(fresh)).map((r) => r.migration_name)).toEqual(files.map((f) => f.name));
    const halfDone = await withClient(fresh, async (c) => (await c.query("SELECT to_regclass('public.half_done') AS t")).rows[0]?.t);
    expect(halfDone).toBeNull();
  });

  it("runs a script with its own BEGIN/COMMIT as Prisma does, recording a failure in logs", async () => {
    const dir = copyOfMigrations();
    const fresh = await scratchDatabase();
    mkdirSync(path.join(dir, "29991231000000_own_tx"));
    writeFileSync(path.join(dir, "29991231000000_own_tx", "migration.sql"), 'BEGIN;\nCREATE TABLE "own_tx" (id int);\nCOMMIT;\n');
    expect((await applyMigrations(fresh, { migrationsDir: dir })).applied).toContain("29991231000000_own_tx");
    mkdirSync(path.join(dir, "29991231000001_own_tx_bad"));
    writeFileSync(path.join(dir, "29991231000001_own_tx_bad", "migration.sql"), 'BEGIN;\nSELECT * FROM "no_such_table";\nCOMMIT;\n');
    await expect(applyMigrations(fresh, { migrationsDir: dir })).rejects.toThrow(/29991231000001_own_tx_bad failed/);
    const bad = (await migrationRows(fresh)).find((r) => r.migration_name === "29991231000001_own_tx_bad");
    expect(bad).toMatchObject({ finished_at: null, rolled_back_at: null, applied_steps_count: 0 });
    expect(bad?.logs).toMatch(/no_such_table/);
    await expect(applyMigrations(fresh, { migrationsDir: dir })).rejects.toThrow(/failed migrations/);
  });

  it("refuses a non-empty database without migration history (Prisma P3005)", async () => {
    const fresh = await scratchDatabase();
    await withClient(fresh, (c) => c.query("CREATE TABLE stray (id int)"));
    await expect(applyMigrations(fresh)).rejects.toThrow(/P3005/);
  });
});

describe("migration-diff.mjs --check", () => {
  const run = promisify(execFile);
  const check = (...extra: string[]) =>
    run(process.execPath, [diffScript, "--check", "--url", server, "--db-prefix", prefix, ...extra]).then(
      () => 0,
      (err: { code?: number; stderr?: string }) => {
        if (typeof err.code !== "number") throw err;
        return err.code;
      },
    );

  it("passes: schema.prisma and the migrations agree, hand-made indexes aside", async () => {
    expect(await check()).toBe(0);
  });

  it("fails when schema.prisma has changes no migration holds", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "ttr-schema-"));
    tempDirs.push(dir);
    const schema = readFileSync(path.join(root, "prisma", "schema.prisma"), "utf8").replace(
      "  monthlyQuota Int      @map(\"monthly_quota\")",
      "  monthlyQuota Int      @map(\"monthly_quota\")\n  driftProbe   Int?",
    );
    writeFileSync(path.join(dir, "schema.prisma"), schema);
    expect(await check("--schema", path.join(dir, "schema.prisma"))).toBe(1);
  });

  it("fails when a hand-made index lost its WHERE clause", async () => {
    const dir = copyOfMigrations();
    // the migration that last creates executions_reap_idx
    const last = readMigrations(dir).filter((m) => readFileSync(path.join(dir, m.name, "migration.sql"), "utf8").includes(`"executions_reap_idx" ON`)).at(-1);
    const file = path.join(dir, last!.name, "migration.sql");
    writeFileSync(file, readFileSync(file, "utf8").replace(`("reap_after") WHERE "status" = 'started';`, `("reap_after");`));
    expect(await check("--migrations", dir)).toBe(1);
  });
});
