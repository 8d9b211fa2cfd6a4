// The Prisma client over node-postgres (Prisma 7 driver adapter; no native
// engine at run time).
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "./generated/prisma/client.js";
import type { SqlRunner } from "./sql.js";

export type Db = PrismaClient;

export interface DbOptions {
  /** pool size for this process */
  max?: number;
  /** name shown in pg_stat_activity */
  applicationName?: string;
  /** the server cancels any statement of this pool that runs longer (ms) */
  statementTimeoutMs?: number;
}

/** How long a caller waits for a free connection of its pool, or for a new one, before failing (pg would wait forever). */
export const POOL_WAIT_MS = 10_000;

/**
 * How long a transaction waits for a connection before failing as
 * unavailable (503). Prisma's own 2 s was too short for a burst of
 * transactions on a busy machine (/schedule edits ran in Prisma's then),
 * which failed with 500 while the pool was merely busy; longer than 4 s, a
 * request could no longer answer its 503 within the 5 s that
 * RELIABILITY.md promises in an outage.
 */
export const TRANSACTION_WAIT_MS = 4000;

export function createDb(databaseUrl: string, opts: DbOptions = {}): Db {
  const adapter = new PrismaPg({
    connectionString: databaseUrl,
    max: opts.max ?? 10,
    connectionTimeoutMillis: POOL_WAIT_MS,
    idleTimeoutMillis: 30_000,
    application_name: opts.applicationName ?? "ttr",
    ...(opts.statementTimeoutMs ? { statement_timeout: opts.statementTimeoutMs } : {}),
  });
  return new PrismaClient({ adapter, transactionOptions: { maxWait: TRANSACTION_WAIT_MS } });
}

interface ErrorLink {
  code?: unknown;
  originalCode?: unknown;
  kind?: unknown;
  message?: unknown;
  meta?: { driverAdapterError?: unknown };
  cause?: unknown;
}

/** The error and what it wraps (Prisma's driver adapter error, `cause`), outermost first. */
function* chain(err: unknown): Generator<ErrorLink> {
  for (let e: unknown = err, depth = 0; e && typeof e === "object" && depth < 6; depth++) {
    const link = e as ErrorLink;
    yield link;
    e = link.meta?.driverAdapterError ?? link.cause;
  }
}

/** One link's error code: pg's `code`, or the driver adapter's `originalCode`. */
const codeOf = (e: ErrorLink): string => (typeof e.code === "string" ? e.code : typeof e.originalCode === "string" ? e.originalCode : "");

const hasCode = (err: unknown, code: string) => {
  for (const e of chain(err)) if (e.code === code || e.originalCode === code) return true;
  return false;
};

/**
 * Whether `err` is PostgreSQL cancelling a statement that outran its
 * statement_timeout (SQLSTATE 57014), as pg or the driver adapter reports it.
 */
export const isStatementTimeout = (err: unknown): boolean => hasCode(err, "57014");

/** PostgreSQL's unique_violation (23505), as pg raises it or as Prisma wraps a raw statement's error. */
export const isUniqueViolation = (err: unknown): boolean => hasCode(err, "23505");

/** Socket errors of a server that is down or cut off. */
const NETWORK_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "ENOTFOUND", "EAI_AGAIN", "EPIPE"]);
/** What Prisma's driver adapter calls the same. */
const ADAPTER_KINDS = new Set(["DatabaseNotReachable", "ConnectionClosed", "SocketTimeout", "TooManyConnections", "TlsConnectionError"]);
/** SQLSTATEs of a server shutting down, starting or full (class 08 is any lost connection). */
const SQLSTATES = new Set(["57P01", "57P02", "57P03", "53300"]);
/**
 * node-postgres's own words for a lost or unobtainable connection, and
 * Prisma's for a transaction that found no free connection in time (P2028).
 */
const PG_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Query read timeout|Client has encountered a connection error|Unable to start a transaction in the given time/;

/**
 * Whether `err` says PostgreSQL could not be reached or went away (down,
 * restarting, cut off, out of connections), rather than that a statement
 * was wrong: such a request answers 503, not 500.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  for (const e of chain(err)) {
    const code = codeOf(e);
    if (NETWORK_CODES.has(code) || SQLSTATES.has(code) || code.startsWith("08")) return true;
    if (typeof e.kind === "string" && ADAPTER_KINDS.has(e.kind)) return true;
    if (typeof e.message === "string" && PG_MESSAGES.test(e.message)) return true;
  }
  return false;
}

/** Errors of a connection that was never made: no statement reached the server. */
const NOT_CONNECTED_CODES = new Set(["ECONNREFUSED", "EHOSTUNREACH", "ENETUNREACH", "ENOTFOUND", "EAI_AGAIN", "57P03", "53300"]);
const NOT_CONNECTED_MESSAGES = /timeout exceeded when trying to connect|Unable to start a transaction in the given time/;

/**
 * Whether a write that failed with `err` may still have been committed:
 * PostgreSQL became unavailable after the statement may have reached it
 * (the server was killed, the connection broke), so its answer, not its
 * effect, may be what was lost. False for failures to connect at all
 * (refused, unknown host, server starting or full), which sent nothing.
 */
export function mayHaveCommitted(err: unknown): boolean {
  if (!isDatabaseUnavailable(err)) return false;
  for (const e of chain(err)) {
    // the driver adapter's name for ECONNREFUSED and ENOTFOUND
    if (NOT_CONNECTED_CODES.has(codeOf(e)) || e.kind === "DatabaseNotReachable") return false;
    if (typeof e.message === "string" && NOT_CONNECTED_MESSAGES.test(e.message)) return false;
  }
  return true;
}

/** Whether PostgreSQL answers a trivial statement on this pool (Prisma's or a plain pg one). */
export async function dbPing(db: SqlRunner): Promise<boolean> {
  await db.$queryRawUnsafe("SELECT 1");
  return true;
}
