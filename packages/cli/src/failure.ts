// Why a command failed, as the one line `ttr: <reason>` that it prints before
// exiting 1. Errors of the database read the same whichever client met them
// (Prisma's driver adapter for most commands, a plain pg connection for
// `migrate` and `prune`) and name the server, never the URL's credentials.
import { isIP } from "node:net";
import { errorChain, isDatabaseUnavailable } from "@ttr/db";
import { startFile } from "./args.js";
import { shown } from "./output.js";

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** The error and what it wraps, an AggregateError's first included, outermost first. */
const chain = (err: unknown) => errorChain(err, { aggregates: true, depth: 8 });

/** What the chain says: every code (pg's SQLSTATE or socket code, Prisma's P…), adapter kind and message in it. */
function facts(err: unknown) {
  const codes = new Set<string>();
  const kinds = new Set<string>();
  const messages: string[] = [];
  let host: string | null = null;
  for (const e of chain(err)) {
    for (const c of [e.code, e.originalCode]) if (typeof c === "string") codes.add(c);
    if (typeof e.kind === "string") kinds.add(e.kind);
    if (typeof e.message === "string") messages.push(e.message);
    if (typeof e.host === "string") host ??= e.host;
  }
  const has = (...names: string[]) => names.some((n) => codes.has(n) || kinds.has(n));
  const said = (pattern: RegExp) => messages.some((m) => pattern.test(m));
  // five characters with a digit, but not one of Prisma's own codes (P1001, P2021: PL/pgSQL's are P0…)
  const sqlstate = [...codes].find((c) => /^(?=.*\d)[0-9A-Z]{5}$/.test(c) && !/^P[1-9]\d{3}$/.test(c)) ?? null;
  return { codes, has, said, host, sqlstate };
}

/** The server a database URL names, as `host:port` (or its socket directory); never the user or password. */
export function serverOf(databaseUrl: string | null): string {
  if (databaseUrl === null) return "the database server";
  try {
    const url = new URL(databaseUrl);
    const socketDir = url.searchParams.get("host");
    if (socketDir) return socketDir;
    return `${url.hostname || "localhost"}:${url.port || "5432"}`;
  } catch {
    return "the database server";
  }
}

const SOCKET_CODES = ["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH"];
const NO_ANSWER =
  /timeout expired|Connection terminated due to connection timeout|timeout exceeded when trying to connect|Query read timeout|Unable to start a transaction in the given time/;
const LOST = /Connection terminated unexpectedly|Connection terminated$/;

/**
 * Whether `databaseUrl` is the embedded PostgreSQL of `npm start`, which runs
 * only while `npm start` does: DATABASE_URL unset, and the env file `npm
 * start` wrote names this URL as its embedded database.
 */
function ofNpmStart(databaseUrl: string | null): boolean {
  if (databaseUrl === null || process.env.DATABASE_URL) return false;
  try {
    const recorded = JSON.parse(startFile("env.json")?.text ?? "null") as { DATABASE_URL?: unknown; embeddedPostgres?: unknown } | null;
    return recorded?.embeddedPostgres === true && recorded.DATABASE_URL === databaseUrl;
  } catch {
    return false;
  }
}

/**
 * A database failure in words an operator can act on, or null when `err` is
 * not one (a refusal of the command itself, say).
 */
function databaseReason(err: unknown, databaseUrl: string | null): string | null {
  const server = serverOf(databaseUrl);
  const f = facts(err);
  if (f.has("42P01", "P2021", "TableDoesNotExist", "42703", "P2022", "ColumnNotFound")) return "the database is not migrated: run ttr migrate";
  if (f.has("3D000", "P1003", "DatabaseDoesNotExist")) return `the database does not exist on ${server}: run ttr migrate, which creates it`;
  const unavailable = (why: string) => `database unavailable: ${why}`;
  if (f.has("P1000", "AuthenticationFailed", "DatabaseAccessDenied") || f.sqlstate?.startsWith("28")) {
    return unavailable(`${server} refused the user name or password${f.sqlstate ? ` (${f.sqlstate})` : ""}`);
  }
  const socket = SOCKET_CODES.find((c) => f.codes.has(c));
  const unreachable = socket !== undefined || f.has("DatabaseNotReachable", "P1001");
  // its port is this run's: nothing listens there once npm start has stopped
  if (unreachable && ofNpmStart(databaseUrl)) return "the database of npm start is not running: start npm start first, or set DATABASE_URL";
  if (socket) return unavailable(`cannot reach ${server} (${socket})`);
  if (f.has("DatabaseNotReachable", "P1001")) {
    // Prisma's driver adapter says the same of a refused connection and an
    // unknown host: only a refused one has the address it tried
    const refused = f.host !== null && isIP(f.host.replace(/^\[|\]$/g, "")) !== 0;
    return unavailable(`cannot reach ${server} (${refused ? "ECONNREFUSED" : "ENOTFOUND"})`);
  }
  if (f.has("ETIMEDOUT", "SocketTimeout", "P1002", "P2028") || f.said(NO_ANSWER)) return unavailable(`no answer from ${server} (timed out)`);
  if (f.has("ECONNRESET", "ConnectionClosed", "P1017") || f.said(LOST)) return unavailable(`${server} closed the connection`);
  if (isDatabaseUnavailable(err)) return unavailable(`${server}: ${oneLine(messageOf(err))}${f.sqlstate ? ` (${f.sqlstate})` : ""}`);
  return null;
}

/**
 * A message on one line: without Prisma's "Invalid `prisma.x()` invocation:"
 * preamble, its lines joined.
 */
function oneLine(message: string): string {
  return message
    .replace(/^\s*Invalid `[^`]*` invocation:?/, "")
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== "")
    .join(" ");
}

/** Credentials written into a URL (`scheme://user:password@host`) are never printed. */
const withoutCredentials = (text: string) => text.replace(/([a-z][a-z0-9+.-]*:\/\/[^\s:/@]*:)[^\s@/]*@/gi, "$1***@");

/** Constraint failures of the admin writes, in the words of the command. */
function friendly(message: string): string | null {
  if (/unique/i.test(message) && /email/i.test(message)) return "a user with this email already exists";
  if (/foreign key/i.test(message)) return "project not found";
  return null;
}

/** The reason line for a command that failed with `err` (without `ttr: `), `databaseUrl` the database it used, if known. */
export function reason(err: unknown, databaseUrl: string | null): string {
  const message = messageOf(err);
  const text = databaseReason(err, databaseUrl) ?? friendly(message) ?? oneLine(message);
  return shown(withoutCredentials(text || "failed"));
}
