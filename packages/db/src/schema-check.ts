// Whether the database holds the schema this ttr was built for: a service
// started on a database that was never migrated, or migrated by an older
// ttr, would otherwise report ready and fail every request with a missing
// table or column (docs/operations.md, logs).
import { existsSync, readdirSync } from "node:fs";
import { isDatabaseUnavailable } from "./client.js";
import { DEFAULT_MIGRATIONS_DIR } from "./migrate.js";
import type { SqlRunner } from "./sql.js";

/**
 * The migrations shipped with this ttr that the database has not applied,
 * oldest first: all of them on a database never migrated. Empty when the
 * migrations are not shipped beside the code (nothing to compare with).
 * Migrations newer than this ttr's (a database already upgraded by a newer
 * release) are not its concern.
 */
export async function missingMigrations(db: SqlRunner, migrationsDir = DEFAULT_MIGRATIONS_DIR): Promise<string[]> {
  if (!existsSync(migrationsDir)) return [];
  const shipped = readdirSync(migrationsDir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
  // the table of the connection's own schema (search_path), if any
  const [table] = await db.$queryRawUnsafe<Array<{ present: boolean }>>("SELECT to_regclass('_prisma_migrations') IS NOT NULL AS present");
  if (!table?.present) return shipped;
  const rows = await db.$queryRawUnsafe<Array<{ name: string }>>(
    "SELECT migration_name AS name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL",
  );
  const applied = new Set(rows.map((r) => r.name));
  return shipped.filter((name) => !applied.has(name));
}

/** Throws, saying what to run, when the database lacks migrations this ttr needs. */
export async function refuseUnmigrated(db: SqlRunner): Promise<void> {
  const missing = await missingMigrations(db);
  if (missing.length === 0) return;
  throw new Error(
    `the database is not migrated for this version of ttr (run \`ttr migrate\`): ${missing.length} migration(s) missing, the latest ${missing.at(-1)}`,
  );
}

/**
 * refuseUnmigrated at a service's start, within `ms`: a database that does
 * not answer by then, or refuses connections, is an outage the service
 * waits out and its readiness reports, not a reason to stop.
 */
export async function refuseUnmigratedAtStart(db: SqlRunner, ms = 3000): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  const checked = refuseUnmigrated(db).catch((err: unknown) => {
    if (!isDatabaseUnavailable(err)) throw err;
  });
  try {
    await Promise.race([checked, late]);
  } finally {
    clearTimeout(timer);
  }
}
