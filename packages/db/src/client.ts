// The Prisma client over node-postgres (Prisma 7 driver adapter; no native
// engine at run time).
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "./generated/prisma/client.js";

export type Db = PrismaClient;

export interface DbOptions {
  /** pool size for this process */
  max?: number;
  /** name shown in pg_stat_activity */
  applicationName?: string;
  /** the server cancels any statement of this pool that runs longer (ms) */
  statementTimeoutMs?: number;
}

export function createDb(databaseUrl: string, opts: DbOptions = {}): Db {
  const adapter = new PrismaPg({
    connectionString: databaseUrl,
    max: opts.max ?? 10,
    // pg waits forever for a free connection by default; fail loudly instead.
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 30_000,
    application_name: opts.applicationName ?? "ttr",
    ...(opts.statementTimeoutMs ? { statement_timeout: opts.statementTimeoutMs } : {}),
  });
  return new PrismaClient({ adapter });
}

/**
 * Whether `err` is PostgreSQL cancelling a statement that outran its
 * statement_timeout (SQLSTATE 57014), as the driver adapter reports it.
 */
export function isStatementTimeout(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && typeof e === "object" && depth < 6; depth++) {
    const o = e as { code?: unknown; originalCode?: unknown; meta?: { driverAdapterError?: unknown }; cause?: unknown };
    if (o.code === "57014" || o.originalCode === "57014") return true;
    e = o.meta?.driverAdapterError ?? o.cause;
  }
  return false;
}

export async function dbPing(db: Db): Promise<boolean> {
  await db.$queryRawUnsafe("SELECT 1");
  return true;
}
