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
}

export function createDb(databaseUrl: string, opts: DbOptions = {}): Db {
  const adapter = new PrismaPg({
    connectionString: databaseUrl,
    max: opts.max ?? 10,
    // pg waits forever for a free connection by default; fail loudly instead.
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 30_000,
    application_name: opts.applicationName ?? "ttr",
  });
  return new PrismaClient({ adapter });
}

export async function dbPing(db: Db): Promise<boolean> {
  await db.$queryRawUnsafe("SELECT 1");
  return true;
}
