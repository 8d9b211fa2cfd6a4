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

export interface ErrorLink {
  code?: unknown;
  originalCode?: unknown;
  kind?: unknown;
  message?: unknown;
  /** the server a connection error names (pg) */
  host?: unknown;
  meta?: { driverAdapterError?: unknown };
  cause?: unknown;
  errors?: unknown;
}

/**
 * The error and what it wraps (Prisma's driver adapter error, `cause`), outermost
 * first, at most `depth` links; with `aggregates`, an AggregateError's first
 * error too (a connect to a name with several addresses).
 */
export function* errorChain(err: unknown, opts: { aggregates?: boolean; depth?: number } = {}): Generator<ErrorLink> {
  const depthLimit = opts.depth ?? 6;
  for (let e: unknown = err, depth = 0; e && typeof e === "object" && depth < depthLimit; depth++) {
    const link = e as ErrorLink;
    yield link;
    e = link.meta?.driverAdapterError ?? link.cause ?? (opts.aggregates && Array.isArray(link.errors) ? link.errors[0] : undefined);
  }
}

const chain = (err: unknown) => errorChain(err);

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

/**
 * Whether `err` is PostgreSQL refusing text it cannot hold: a NUL character
 * (22021 in a text value, 22P05 as `\u0000` in jsonb) or an unpaired
 * surrogate in jsonb (22P02 would be any bad JSON; PostgreSQL reports this
 * one as 22P05 too, or as 22021 once encoded). The statement failed whole.
 */
export const isUnstorableText = (err: unknown): boolean => hasCode(err, "22021") || hasCode(err, "22P05");

/**
 * Whether `err` is PostgreSQL choosing the statement as the victim of a
 * deadlock (40P01) or of a serialization failure (40001). Its transaction
 * was rolled back whole, so running it again is safe, and usually succeeds.
 */
export const isConflict = (err: unknown): boolean => hasCode(err, "40P01") || hasCode(err, "40001");

/**
 * Runs a transaction again, at once and up to `tries` times in all, while
 * PostgreSQL rolls it back as a conflict's victim (isConflict): the lost
 * run changed nothing, and the other side has gone on by then. An edit of a
 * recurring trigger locks it before its pending instance, while the
 * scheduler and a cancel by the instance's ID lock the instance first.
 */
export async function retryConflicts<T>(transaction: () => Promise<T>, tries = 3): Promise<T> {
  for (let run = 1; ; run++) {
    try {
      return await transaction();
    } catch (err) {
      if (!isConflict(err) || run >= tries) throw err;
    }
  }
}

/** PostgreSQL's unique_violation (23505), as pg raises it or as Prisma wraps a raw statement's error. */
export const isUniqueViolation = (err: unknown): boolean => hasCode(err, "23505");

/** Socket errors of a server that is down or cut off. */
const NETWORK_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "ENOTFOUND", "EAI_AGAIN", "EPIPE"]);
/** What Prisma's driver adapter calls the same. */
const ADAPTER_KINDS = new Set(["DatabaseNotReachable", "ConnectionClosed", "SocketTimeout", "TooManyConnections", "TlsConnectionError"]);
/**
 * SQLSTATEs of a server that cannot take the work now: shutting down or
 * starting (57P0x), or read-only (25006: a standby, such as a former primary
 * that connections still reach after a failover).
 */
const SQLSTATES = new Set(["25006", "57P01", "57P02", "57P03", "57P04", "57P05"]);
/**
 * Whole SQLSTATE classes of the same: 08 a lost connection, 28 credentials
 * refused (a password rotated under a running service), 53 out of
 * resources (disk full, out of memory, too many connections), 58 a failure
 * of the server's system (I/O errors).
 */
const UNAVAILABLE_CLASSES = ["08", "28", "53", "58"];
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
    if (NETWORK_CODES.has(code) || SQLSTATES.has(code) || UNAVAILABLE_CLASSES.includes(code.slice(0, 2))) return true;
    if (typeof e.kind === "string" && ADAPTER_KINDS.has(e.kind)) return true;
    if (typeof e.message === "string" && PG_MESSAGES.test(e.message)) return true;
  }
  return false;
}

/** node-postgres giving up by itself (query_timeout, connectionTimeoutMillis): the server said nothing in time. */
const CLIENT_GAVE_UP = /Query read timeout|timeout exceeded when trying to connect|Connection terminated due to connection timeout/;

/** Whether `err` is node-postgres's own time limit running out, rather than anything the server said. */
export const isClientTimeout = (err: unknown): boolean => err instanceof Error && CLIENT_GAVE_UP.test(err.message);

/**
 * Errors of a connection that was never made (no statement reached the
 * server), or of a statement the server refused with an error of its own
 * (read-only, credentials, out of resources), which rolled its transaction back.
 */
const NOT_CONNECTED_CODES = new Set(["ECONNREFUSED", "EHOSTUNREACH", "ENETUNREACH", "ENOTFOUND", "EAI_AGAIN", "57P03", "25006"]);
const NOT_COMMITTED_CLASSES = ["28", "53"];
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
    const code = codeOf(e);
    if (NOT_CONNECTED_CODES.has(code) || NOT_COMMITTED_CLASSES.includes(code.slice(0, 2)) || e.kind === "DatabaseNotReachable") return false;
    if (typeof e.message === "string" && NOT_CONNECTED_MESSAGES.test(e.message)) return false;
  }
  return true;
}

/**
 * The readiness probe's PostgreSQL check: it answers, and takes writes.
 * A server that answers read-only (a standby, or a former primary that a
 * failover demoted while connections still reach it) fails every write;
 * the service must not be ready on it. Throws then, as for no answer.
 */
export async function dbTakesWrites(db: SqlRunner): Promise<boolean> {
  const rows = await db.$queryRawUnsafe<Array<{ readOnly: string }>>(`SELECT current_setting('transaction_read_only') AS "readOnly"`);
  if (rows[0]?.readOnly !== "off") throw new Error("PostgreSQL is read-only (a standby?): writes would fail");
  return true;
}

/** Whether PostgreSQL answers a trivial statement on this pool (Prisma's or a plain pg one). */
export async function dbPing(db: SqlRunner): Promise<boolean> {
  await db.$queryRawUnsafe("SELECT 1");
  return true;
}
