// Applies the Prisma migrations in prisma/migrations with plain `pg`, for
// machines where Prisma's native schema engine cannot be had. Bookkeeping is
// Prisma's own (prisma-engines, sql-schema-connector), so `prisma migrate
// deploy` run later, where the engine exists, sees these migrations as applied:
// - table `_prisma_migrations` with the engine's DDL, created on first use,
//   refused (P3005) when the schema already holds other tables;
// - one row per migration: id a random UUID v4, checksum the SHA-256 hex of
//   migration.sql's bytes, started_at and finished_at the client's clock,
//   applied_steps_count 1, logs NULL;
// - session advisory lock 72707369, the key `migrate deploy` takes, so this
//   and Prisma never migrate the same database at once.
// Differences, both stricter: each migration runs in one transaction together
// with its row, so a failed migration leaves neither schema changes nor a row
// (Prisma records a failed row instead, unless the script manages its own
// transaction, see below), and an applied migration whose file changed is
// refused (Prisma's `deploy` ignores edits, `migrate dev` reports them).
import { createHash, randomUUID } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";

/** The advisory lock key of Prisma Migrate (sql-schema-connector, flavour/postgres.rs). */
export const PRISMA_MIGRATE_LOCK_KEY = 72707369;

/** `_prisma_migrations` exactly as the schema engine creates it on PostgreSQL. */
export const PRISMA_MIGRATIONS_TABLE_DDL = `CREATE TABLE _prisma_migrations (
    id                      VARCHAR(36) PRIMARY KEY NOT NULL,
    checksum                VARCHAR(64) NOT NULL,
    finished_at             TIMESTAMPTZ,
    migration_name          VARCHAR(255) NOT NULL,
    logs                    TEXT,
    rolled_back_at          TIMESTAMPTZ,
    started_at              TIMESTAMPTZ NOT NULL DEFAULT now(),
    applied_steps_count     INTEGER NOT NULL DEFAULT 0
);
`;

export interface ApplyMigrationsOptions {
  /** default: prisma/migrations at the repository root */
  migrationsDir?: string;
  log?: (msg: string) => void;
  /** how long to wait for another migrator's lock; default 60 s (Prisma: 10 s) */
  lockTimeoutMs?: number;
}

interface MigrationFile {
  name: string;
  script: string;
  checksum: string;
}

interface MigrationRow {
  id: string;
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
  rolled_back_at: Date | null;
  started_at: Date;
  logs: string | null;
}

export const DEFAULT_MIGRATIONS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "prisma", "migrations");

/** The migration's checksum as the schema engine computes it: SHA-256 of the script, lowercase hex. */
export function migrationChecksum(script: string | Buffer): string {
  return createHash("sha256").update(script).digest("hex");
}

/**
 * The engine's comparison (schema-connector checksum.rs): line endings may
 * differ (git on Windows), and old engines wrote hex without zero padding.
 */
function scriptMatchesChecksum(script: string, checksum: string): boolean {
  const variants = [script, script.replaceAll("\r\n", "\n"), script.replaceAll("\n", "\r\n")];
  return variants.some((v) => {
    const digest = createHash("sha256").update(v).digest();
    const rendered = checksum.length !== 64 && checksum.length > 0 ? [...digest].map((b) => b.toString(16)).join("") : digest.toString("hex");
    return rendered === checksum;
  });
}

/** Migration folders in name order, as Prisma lists them. */
export function readMigrations(migrationsDir: string): MigrationFile[] {
  if (!existsSync(migrationsDir)) throw new Error(`migrations directory not found: ${migrationsDir}`);
  const lock = path.join(migrationsDir, "migration_lock.toml");
  if (existsSync(lock)) {
    const provider = /^\s*provider\s*=\s*"([^"]*)"/m.exec(readFileSync(lock, "utf8"))?.[1];
    if (provider && provider !== "postgresql") {
      throw new Error(`${lock} says provider = "${provider}", but these migrations are applied to PostgreSQL`);
    }
  }
  const names = readdirSync(migrationsDir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
  const decoder = new TextDecoder("utf-8", { fatal: true });
  return names.map((name) => {
    const file = path.join(migrationsDir, name, "migration.sql");
    if (!existsSync(file)) throw new Error(`migration ${name} has no migration.sql`);
    const bytes = readFileSync(file);
    return { name, script: decoder.decode(bytes), checksum: migrationChecksum(bytes) };
  });
}

function databaseNameOf(databaseUrl: string): string {
  const name = decodeURIComponent(new URL(databaseUrl).pathname.replace(/^\//, ""));
  if (!name) throw new Error("the database URL names no database");
  return name;
}

function withDatabase(databaseUrl: string, database: string): string {
  const url = new URL(databaseUrl);
  url.pathname = `/${encodeURIComponent(database)}`;
  return url.toString();
}

/**
 * Prisma URLs may carry `?schema=`. ttr's services keep their tables in
 * `public` (they refuse another schema at start), so migrating another one
 * would only leave a database they cannot use: refused.
 */
function schemaOf(databaseUrl: string): string {
  const schema = new URL(databaseUrl).searchParams.get("schema") || "public";
  if (schema !== "public") {
    throw new Error(`DATABASE_URL has schema=${schema}: ttr keeps its tables in the public schema; give it a database of its own instead`);
  }
  return schema;
}

const quoteIdent = (name: string): string => `"${name.replaceAll('"', '""')}"`;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function errorCode(err: unknown): string | undefined {
  return typeof err === "object" && err !== null && "code" in err ? String((err as { code: unknown }).code) : undefined;
}

/** Whether the URL's database can be connected to: false only when it does not exist (3D000). */
async function databaseExists(databaseUrl: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 10_000 });
  client.on("error", () => {});
  try {
    await client.connect();
    return true;
  } catch (err) {
    if (errorCode(err) === "3D000") return false;
    throw err;
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * Creates the URL's database unless it exists; safe when several processes
 * race. A database that exists is found by connecting to it, so a role
 * allowed only there (no CONNECT on `postgres`) can migrate it.
 */
export async function createDatabaseIfMissing(databaseUrl: string): Promise<boolean> {
  if (await databaseExists(databaseUrl)) return false;
  const name = databaseNameOf(databaseUrl);
  const client = new pg.Client({ connectionString: withDatabase(databaseUrl, "postgres"), connectionTimeoutMillis: 10_000 });
  client.on("error", () => {}); // a dropped connection fails the statement in flight instead
  await client.connect();
  try {
    const { rowCount } = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    if (rowCount) return false;
    try {
      await client.query(`CREATE DATABASE ${quoteIdent(name)}`);
      return true;
    } catch (err) {
      // 42P04 duplicate_database, 23505 when two CREATE DATABASE race on the catalog
      if (errorCode(err) === "42P04" || errorCode(err) === "23505") return false;
      throw err;
    }
  } finally {
    await client.end();
  }
}

async function acquireLock(client: pg.Client, timeoutMs: number, log: (msg: string) => void): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let announced = false;
  for (;;) {
    const { rows } = await client.query<{ locked: boolean }>("SELECT pg_try_advisory_lock($1) AS locked", [PRISMA_MIGRATE_LOCK_KEY]);
    if (rows[0]?.locked) return;
    if (Date.now() >= deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for the migration lock (pg_advisory_lock(${PRISMA_MIGRATE_LOCK_KEY})) held by another migrator`);
    }
    if (!announced) log("another process is migrating this database: waiting for it");
    announced = true;
    await sleep(250);
  }
}

/** Creates `_prisma_migrations` when missing, refusing a non-empty schema as Prisma does (P3005). */
async function ensureMigrationsTable(client: pg.Client, schema: string): Promise<void> {
  const { rows } = await client.query<{ table_name: string }>(
    `SELECT c.relname AS table_name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE c.relkind = 'r' AND n.nspname = $1`,
    [schema],
  );
  const tables = rows.map((r) => r.table_name);
  if (tables.includes("_prisma_migrations")) return;
  if (tables.length > 0) {
    throw new Error(
      `The database schema "${schema}" is not empty but has no _prisma_migrations table (Prisma P3005): ` +
        `it was not created by these migrations. Baseline it (prisma migrate resolve --applied) or use an empty database. ` +
        `Tables found: ${tables.slice(0, 10).join(", ")}${tables.length > 10 ? ", …" : ""}`,
    );
  }
  await client.query(PRISMA_MIGRATIONS_TABLE_DDL);
}

/** Scripts that open or close transactions themselves cannot be wrapped in one. */
function managesOwnTransaction(script: string): boolean {
  return /^\s*(BEGIN|COMMIT|ROLLBACK|START\s+TRANSACTION)\s*;/im.test(script);
}

/**
 * Earlier texts of three migrations, which were edited after some databases
 * had applied them (a mistake: an applied migration is never edited, a new
 * one is added). A database that applied one of these texts is as good as
 * one that applied the file as it is now: the first differs in a comment;
 * the other two made an index that 20261207180000_converge_edited_migrations
 * drops, and one that a later migration drops anyway. SHA-256 of each text.
 */
const EARLIER_CHECKSUMS: Record<string, readonly string[]> = {
  "20261124110000_held_attempts": ["7feaab8c55aa3e9099ffde9b28b5753ec851b326e80551ae55be9d257603344c"],
  "20261126100000_overview_indexes": ["b1cfa7cf214761cfa3b56577f9619387a98c145c857f019c6aabe69913ac2b55"],
  "20261126110000_fewer_index_writes": ["e8cfdb6f2e079c105610eab82c6ca310dc0a20999225dd73650e725e09a23103"],
};

function checkHistory(files: MigrationFile[], rows: MigrationRow[], log: (msg: string) => void): Set<string> {
  const failed = rows.filter((r) => r.finished_at === null && r.rolled_back_at === null);
  if (failed.length) {
    const details = failed
      .map((r) => `The \`${r.migration_name}\` migration started at ${r.started_at.toISOString()} failed${r.logs?.trim() ? ` with the following logs:\n${r.logs.trim()}` : ""}`)
      .join("\n");
    throw new Error(
      `Found failed migrations in the target database (Prisma P3009); new migrations will not be applied.\n${details}\n` +
        "Repair the database, then mark the migration with `prisma migrate resolve --rolled-back <name>` or `--applied <name>`.",
    );
  }
  const byName = new Map(files.map((f) => [f.name, f]));
  const applied = rows.filter((r) => r.finished_at !== null && r.rolled_back_at === null);
  const changed = applied.filter((r) => {
    const file = byName.get(r.migration_name);
    return file !== undefined && !scriptMatchesChecksum(file.script, r.checksum) && !EARLIER_CHECKSUMS[r.migration_name]?.includes(r.checksum);
  });
  if (changed.length) {
    throw new Error(
      `Migration file(s) changed after being applied: ${changed.map((r) => r.migration_name).join(", ")}. ` +
        "Applied migrations must not be edited: restore the file and put the change in a new migration.",
    );
  }
  const appliedNames = new Set(applied.map((r) => r.migration_name));
  const unknown = [...appliedNames].filter((n) => !byName.has(n));
  if (unknown.length) log(`applied migrations missing from the migrations directory: ${unknown.join(", ")}`);
  return appliedNames;
}

async function applyOne(client: pg.Client, migration: MigrationFile): Promise<void> {
  const id = randomUUID();
  const insertRow = `INSERT INTO _prisma_migrations (id, checksum, started_at, migration_name) VALUES ($1, $2, $3, $4)`;
  const finishRow = `UPDATE _prisma_migrations SET applied_steps_count = applied_steps_count + 1, finished_at = $2 WHERE id = $1`;

  if (managesOwnTransaction(migration.script)) {
    // Prisma's own sequence: the row first, then the script, then success or
    // the error in `logs` (a failed migration that blocks later runs).
    await client.query(insertRow, [id, migration.checksum, new Date(), migration.name]);
    try {
      await client.query(migration.script);
    } catch (err) {
      await client.query("ROLLBACK").catch(() => {});
      await client.query("UPDATE _prisma_migrations SET logs = $2 WHERE id = $1", [id, String(err instanceof Error ? err.message : err)]);
      throw new Error(`migration ${migration.name} failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
    await client.query(finishRow, [id, new Date()]);
    return;
  }

  await client.query("BEGIN");
  try {
    await client.query(insertRow, [id, migration.checksum, new Date(), migration.name]);
    await client.query(migration.script);
    await client.query(finishRow, [id, new Date()]);
    await client.query("COMMIT");
  } catch (err) {
    await client.query("ROLLBACK").catch(() => {});
    throw new Error(`migration ${migration.name} failed and was rolled back: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
}

/**
 * Applies the migrations not yet recorded in `_prisma_migrations`, in name
 * order, each in its own transaction. Returns the names applied now.
 */
export async function applyMigrations(databaseUrl: string, opts: ApplyMigrationsOptions = {}): Promise<{ applied: string[] }> {
  const log = opts.log ?? (() => {});
  const files = readMigrations(opts.migrationsDir ?? DEFAULT_MIGRATIONS_DIR);
  const schema = schemaOf(databaseUrl);
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 10_000, application_name: "ttr-migrate" });
  client.on("error", () => {}); // a dropped connection fails the statement in flight instead
  await client.connect();
  try {
    await client.query(`SET search_path TO ${quoteIdent(schema)}`);
    await acquireLock(client, opts.lockTimeoutMs ?? 60_000, log);
    try {
      await ensureMigrationsTable(client, schema);
      const { rows } = await client.query<MigrationRow>(
        "SELECT id, migration_name, checksum, finished_at, rolled_back_at, started_at, logs FROM _prisma_migrations ORDER BY started_at",
      );
      const appliedNames = checkHistory(files, rows, log);
      const applied: string[] = [];
      for (const migration of files) {
        if (appliedNames.has(migration.name)) continue;
        log(`applying migration ${migration.name}`);
        await applyOne(client, migration);
        applied.push(migration.name);
      }
      return { applied };
    } finally {
      await client.query("SELECT pg_advisory_unlock($1)", [PRISMA_MIGRATE_LOCK_KEY]).catch(() => {});
    }
  } finally {
    await client.end();
  }
}
