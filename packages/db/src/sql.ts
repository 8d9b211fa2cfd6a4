// Named SQL statements: each state change lives in one file
// under packages/db/sql whose header says what it does, its parameters and
// what it returns. Files are read once, at first use.
import { readFileSync } from "node:fs";

const cache = new Map<string, string>();

export function sql(name: string): string {
  let text = cache.get(name);
  if (text === undefined) {
    text = readFileSync(new URL(`../sql/${name}.sql`, import.meta.url), "utf8");
    cache.set(name, text);
  }
  return text;
}

/** What Prisma's client and its transaction client both offer for raw SQL. */
export interface SqlRunner {
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): PromiseLike<T>;
  $executeRawUnsafe(query: string, ...values: unknown[]): PromiseLike<number>;
}

/**
 * What runs a function in one transaction: Prisma's client, and the plain
 * pools (createPgRunner), whose statements are prepared and keep their plans.
 */
export interface Transactional {
  /** Runs `fn` in one transaction on one connection; rolled back when `fn` throws. */
  $transaction<T>(fn: (tx: SqlRunner) => Promise<T>): Promise<T>;
}

export async function query<T>(db: SqlRunner, name: string, ...values: unknown[]): Promise<T[]> {
  return (await db.$queryRawUnsafe<T[]>(sql(name), ...values)) as T[];
}

export async function queryOne<T>(db: SqlRunner, name: string, ...values: unknown[]): Promise<T | undefined> {
  return (await query<T>(db, name, ...values))[0];
}

export async function execute(db: SqlRunner, name: string, ...values: unknown[]): Promise<number> {
  return db.$executeRawUnsafe(sql(name), ...values);
}
