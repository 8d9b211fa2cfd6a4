// Whether the database holds the schema this ttr was built for: a service
// started on a database that was never migrated, or migrated by an older
// ttr, would otherwise report ready and fail every request with a missing
// table or column (docs/operations.md, logs).
import { existsSync, readdirSync } from "node:fs";
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

/** What refuseUnmigrated throws. */
export class NotMigrated extends Error {}

/** Throws NotMigrated, saying what to run, when the database lacks migrations this ttr needs. */
export async function refuseUnmigrated(db: SqlRunner): Promise<void> {
  const missing = await missingMigrations(db);
  if (missing.length === 0) return;
  throw new NotMigrated(
    `the database is not migrated for this version of ttr (run \`ttr migrate\`): ${missing.length} migration(s) missing, the latest ${missing.at(-1)}`,
  );
}

/**
 * refuseUnmigrated at a service's start. Waits up to `ms` for the answer
 * and throws if migrations are missing. A database that does not answer by
 * then, or refuses connections, is an outage the service waits out (its
 * readiness says so): the check goes on in the background, every
 * `retryMs`, until it has an answer, and migrations found missing then end
 * the process as an uncaught error does (one `<service> stopped` line).
 */
export async function refuseUnmigratedAtStart(db: SqlRunner, ms = 3000, retryMs = 5000): Promise<void> {
  const sleep = (t: number) => new Promise<void>((resolve) => setTimeout(resolve, t).unref());
  // true once answered (migrated), NotMigrated when migrations are missing;
  // any other failure (refused, timed out, cut off) is asked again later
  const check = async (): Promise<true | NotMigrated> => {
    for (;;) {
      try {
        await refuseUnmigrated(db);
        return true;
      } catch (err) {
        if (err instanceof NotMigrated) return err;
      }
      await sleep(retryMs);
    }
  };
  const answer = check();
  const first = await Promise.race([answer, sleep(ms).then(() => undefined)]);
  if (first instanceof NotMigrated) throw first;
  if (first === true) return;
  void answer.then((late) => {
    if (late instanceof NotMigrated)
      setImmediate(() => {
        throw late;
      });
  });
}
