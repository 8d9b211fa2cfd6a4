// A plain node-postgres pool for the hot paths (executor, scheduler,
// /schedule). Statements sent through Prisma's adapter are planned afresh on
// every call, and planning a statement over day-partitioned history costs
// more than running it (it grows with the number of days: docs/storage.md);
// here statements are named ones that each connection prepares once, so
// PostgreSQL can keep its plan. The few that name several days of the rows
// they change are the exception (PLANNED_PER_CALL). It also answers the
// SqlRunner interface, so the rest of the named statements work on it
// unchanged.
import pg from "pg";
import { isDatabaseUnavailable, POOL_WAIT_MS } from "./client.js";
import { sql, type SqlRunner, type Transactional } from "./sql.js";

export interface PgRunner extends SqlRunner, Transactional {
  /** Runs the named statement (packages/db/sql/<name>.sql), prepared once per connection. */
  named<T>(name: string, values: unknown[]): Promise<T[]>;
  /**
   * Runs `fn` on each connection idle in the pool now, one after the other
   * (to make their kept plans ahead of use); answers how many. All are
   * taken at once, so none is run twice and no new one is opened for this,
   * and each goes back to the pool as soon as its turn is done.
   */
  eachIdleConnection(fn: (db: SqlRunner) => Promise<unknown>): Promise<number>;
  end(): Promise<void>;
}

export interface PgRunnerOptions {
  max?: number;
  applicationName?: string;
  /**
   * give up on a statement that has not answered after this long (ms), so a
   * connection the network silently dropped cannot hang its caller forever
   */
  queryTimeoutMs?: number;
  /** how long a caller waits for a free or new connection (ms, POOL_WAIT_MS unless set) */
  connectTimeoutMs?: number;
  /**
   * Plan prepared statements for their values on every call, never keeping
   * a generic plan (plan_cache_mode = force_custom_plan). For pools whose
   * statements each name one day (the executor's): planned for its values,
   * such a statement leaves the other days out early, for about 1–2 ms. A
   * kept plan costs less per call, but covers every day partition, and
   * PostgreSQL makes it again after any partition is added or removed:
   * 140–160 ms per connection and statement at 60 days (measured), a stall
   * that retention and the daily partitions would bring to every connection.
   * Left to itself (`auto`), PostgreSQL also makes that plan, to compare.
   */
  customPlans?: boolean;
  /**
   * Keep one generic plan per prepared statement from its first call
   * (plan_cache_mode = force_generic_plan). For pools whose statements do
   * not name a day (the scheduler's sweeps over every day's partial
   * indexes): left to itself, PostgreSQL first plans each one for its
   * values five times, 1.5–9 ms apiece over a month of days (measured,
   * docs/storage.md), so a freshly started scheduler would pay that on
   * every sweep of its first half minute. The statements planned on each
   * call (PLANNED_PER_CALL) are sent with their values written in, which
   * this setting does not touch. Every periodic statement's generic plan is
   * checked to be index-served (packages/db/test/index-served.test.ts).
   */
  genericPlans?: boolean;
  /**
   * How long a connection may sit idle before the pool closes it (ms, 30 s
   * unless set); 0 keeps it until the pool ends. For a pool whose kept
   * plans are dear to make (the scheduler's loop): a connection opened
   * again plans each statement again on first use, about 0.4 s for one
   * tick's statements over 70 day partitions (docs/storage.md).
   */
  idleTimeoutMs?: number;
  /**
   * Server settings for this pool's sessions, sent when each connects
   * (e.g. `idle_in_transaction_session_timeout`). `jit` and parallel
   * plans are off unless set here (SHORT_STATEMENTS).
   */
  settings?: Record<string, string | number>;
}

/**
 * Every pool of this kind runs with `jit = off` and without parallel plans
 * (`max_parallel_workers_per_gather = 0`). Its statements are short and
 * index-served, but a kept plan is costed for any parameter value over
 * every day partition, which can make it look big enough for either:
 * - past `jit_above_cost`, the dashboard's trigger list spent about 4 s
 *   compiling a call that runs in 15 ms;
 * - past the parallel thresholds, the scheduler's two checks for lost
 *   queue jobs (every 5 s) each started two worker processes, 11–15 ms a
 *   call against 0.4–0.5 ms without, on the machine's cores that firing
 *   needs (docs/storage.md).
 * Neither pays off for statements that read a page or a batch.
 */
export const SHORT_STATEMENTS = { jit: "off", max_parallel_workers_per_gather: 0 } as const;

/** `SET LOCAL` statements that give a transaction `settings` (for a session not made by a pool, as the plan tests use). */
export const setLocal = (settings: Record<string, string | number>): string[] => Object.entries(settings).map(([k, v]) => `SET LOCAL ${k} = ${pg.escapeLiteral(String(v))}`);

/** The `options` connection parameter that applies `settings` to a session. */
export function sessionOptions(settings: Record<string, string | number>): string | undefined {
  const entries = Object.entries(settings);
  return entries.length === 0 ? undefined : entries.map(([k, v]) => `-c ${k}=${v}`).join(" ");
}

/**
 * Statements that change rows named by id and by a list of days
 * (`part_day = ANY($n)`: the scheduler's batches hold triggers created on
 * many days). Planned for their values, PostgreSQL leaves every other day's
 * partition out of the plan; a kept (generic) plan cannot prune by an array
 * parameter, and would probe each day's partition for every id, a cost that
 * grows with the days of history. These are therefore sent unprepared and
 * planned on each call, a cost shared by the rows of a batch. (Statements
 * that name one day, `part_day = $n`, are pruned by their kept plan too,
 * when it starts: the executor's, which send one statement per day.)
 */
export const PLANNED_PER_CALL = ["promote_due", "mark_dispatched", "hold_attempts"] as const;

/** node-postgres's own conversion of a parameter to its text (arrays, dates, buffers), untyped in @types/pg */
const { prepareValue } = (pg as unknown as { utils: { prepareValue(value: unknown): string | null } }).utils;

/** A parameter value as a quoted SQL literal (of unknown type), or NULL. */
export function sqlLiteral(value: unknown): string {
  const text = prepareValue(value);
  return text === null ? "NULL" : pg.escapeLiteral(String(text));
}

/** `text` without its `--` comments (a value written in must not land in one: a newline in it would end the comment). */
const withoutComments = (text: string) => text.replace(/--[^\n]*/g, "");

/** `$n` replaced by value n as a literal, in a text that holds no comment. */
const writeValues = (text: string, values: unknown[]) => text.replace(/\$(\d+)/g, (_, n: string) => sqlLiteral(values[Number(n) - 1]));

/**
 * `text` with its comments removed and each `$n` replaced by its value as a
 * quoted literal. Sent so, with no parameters, a statement is planned for
 * its values whatever the session's plan_cache_mode. Only for the fixed
 * statements of PLANNED_PER_CALL, whose text holds no `--` inside a quoted
 * string.
 */
export function withValuesWritten(text: string, values: unknown[]): string {
  return writeValues(withoutComments(text), values);
}

/**
 * Runs `fn` on a connection taken from a pool, then gives it back. The pool
 * listens for errors on idle connections only. A checked-out one that the
 * server ends between two statements (PostgreSQL killed while `fn` awaits
 * something else) would emit 'error' with no listener and end the process;
 * instead its next statement fails, and the connection is closed, not
 * reused. `fn` may also mark it broken itself.
 */
async function checkedOut<T>(client: pg.PoolClient, fn: (broken: (err: Error) => void) => Promise<T>): Promise<T> {
  let broken: Error | undefined;
  const onError = (err: Error) => {
    broken = err;
  };
  client.on("error", onError);
  try {
    return await fn(onError);
  } finally {
    client.off("error", onError);
    client.release(broken);
  }
}

export function createPgRunner(databaseUrl: string, opts: PgRunnerOptions = {}): PgRunner {
  const planCacheMode = opts.customPlans ? "force_custom_plan" : opts.genericPlans ? "force_generic_plan" : undefined;
  const options = sessionOptions({ ...SHORT_STATEMENTS, ...opts.settings, ...(planCacheMode ? { plan_cache_mode: planCacheMode } : {}) });
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: opts.max ?? 10,
    // pg waits forever for a free connection by default; fail loudly instead.
    connectionTimeoutMillis: opts.connectTimeoutMs ?? POOL_WAIT_MS,
    idleTimeoutMillis: opts.idleTimeoutMs ?? 30_000,
    application_name: opts.applicationName ?? "ttr",
    ...(opts.queryTimeoutMs ? { query_timeout: opts.queryTimeoutMs } : {}),
    ...(options ? { options } : {}),
  });
  // An idle connection that the server closed must not crash the process.
  pool.on("error", () => {});
  // Every text sent is one of the named statements (a fixed set), so each
  // is prepared once per connection under a name of its own, but for those
  // planned on each call.
  // each per-call statement's text without comments, made once
  const perCall = new Map<string, string>(PLANNED_PER_CALL.map((name) => [sql(name), withoutComments(sql(name))]));
  const names = new Map<string, string>();
  const config = (text: string, values: unknown[]) => {
    const bare = perCall.get(text);
    if (bare !== undefined) return { text: writeValues(bare, values) };
    let name = names.get(text);
    if (name === undefined) {
      name = `ttr_${names.size}`;
      names.set(text, name);
    }
    return { name, text, values };
  };
  const on = (db: pg.Pool | pg.PoolClient): SqlRunner => ({
    $queryRawUnsafe: async <T>(text: string, ...values: unknown[]) => (await db.query(config(text, values))).rows as T,
    $executeRawUnsafe: async (text: string, ...values: unknown[]) => (await db.query(config(text, values))).rowCount ?? 0,
  });
  return {
    ...on(pool),
    async $transaction<T>(fn: (tx: SqlRunner) => Promise<T>): Promise<T> {
      const client = await pool.connect();
      return checkedOut(client, async (broken) => {
        try {
          await client.query("BEGIN");
          const result = await fn(on(client));
          await client.query("COMMIT");
          return result;
        } catch (err) {
          // A connection whose server is unavailable is closed, not rolled
          // back: after a statement that timed out (queryTimeoutMs) a ROLLBACK
          // would wait behind the lost answer, and after a read-only refusal
          // the next connection may reach the new primary of a failover. So
          // is one that could not roll back.
          if (isDatabaseUnavailable(err)) broken(err as Error);
          else await client.query("ROLLBACK").catch(broken);
          throw err;
        }
      });
    },
    async named<T>(name: string, values: unknown[]) {
      return (await pool.query(config(sql(name), values))).rows as T[];
    },
    async eachIdleConnection(fn: (db: SqlRunner) => Promise<unknown>) {
      const clients = await Promise.all(Array.from({ length: pool.idleCount }, () => pool.connect()));
      let failed: unknown;
      for (const client of clients) {
        await checkedOut(client, () => fn(on(client))).catch((err: unknown) => {
          failed ??= err;
        });
      }
      if (failed !== undefined) throw failed;
      return clients.length;
    },
    end: () => pool.end(),
  };
}

/** The SqlRunner interface over one plain node-postgres client (for work that needs its own session). */
export function clientRunner(client: pg.ClientBase): SqlRunner {
  return {
    $queryRawUnsafe: async <T>(text: string, ...values: unknown[]) => (await client.query(text, values)).rows as T,
    $executeRawUnsafe: async (text: string, ...values: unknown[]) => (await client.query(text, values)).rowCount ?? 0,
  };
}

/** Runs `fn` on a connection of its own, closed afterwards. */
export async function withPgClient<T>(databaseUrl: string, fn: (client: pg.Client) => Promise<T>, applicationName = "ttr"): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 10_000, application_name: applicationName });
  // A connection the server ends (a restart, an admin) fails the statement in
  // flight, which `fn` sees; unhandled, the same 'error' event would also
  // end the process.
  client.on("error", () => {});
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * The api's pool for the dashboard's reads (its trigger and execution
 * pages, a trigger's detail, the overview, stats and usage): kept generic
 * plans (their SQL is written so that one plan serves every call,
 * docs/storage.md) and a statement timeout, so a slow read answers 503
 * instead of holding a connection that firing needs. Its idle connections
 * stay open: one opened again would build each read's plan again on first
 * use (about 130 ms a statement over a month of days), and a dashboard is
 * often left idle for longer than a pool's usual 30 s.
 */
export function createReadsRunner(databaseUrl: string, opts: { max: number; statementTimeoutMs: number; applicationName?: string }): PgRunner {
  return createPgRunner(databaseUrl, {
    max: opts.max,
    applicationName: opts.applicationName ?? "ttr-api-reads",
    idleTimeoutMs: 0,
    genericPlans: true,
    settings: { statement_timeout: opts.statementTimeoutMs },
    // a server that cannot cancel (frozen, cut off) is given up on a second later
    queryTimeoutMs: opts.statementTimeoutMs + 1000,
  });
}
