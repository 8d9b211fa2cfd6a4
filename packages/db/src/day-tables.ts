// The day tables of triggers, executions and trigger_tags, as retention
// (retention.ts) handles them: reading their bounds, detaching a day's three
// tables without holding up firing, and finishing what a pass cut off midway
// left behind.
import { query, type SqlRunner } from "./sql.js";

type Log = ((msg: string, meta?: Record<string, unknown>) => void) | undefined;

/** How long the pass's detach may wait for the tables (firing waits behind it meanwhile), and how often it tries. */
const DETACH_LOCK_MS = 50;
const DETACH_TRIES = 20;
/**
 * The detach waits for a moment when no other session of the database has
 * run a statement for QUIET_FOR_MS (pg_stat_activity, polled every
 * QUIET_POLL_MS): a second's firing is then over, and the detach's lock,
 * held for tens of milliseconds, is not in the way of the next. Shorter
 * gaps open within a burst of fires (the executors send the requests
 * between their statements). It waits at most QUIET_MAX_MS: under load
 * that never pauses it goes ahead, and the lock timeout below still bounds
 * the wait it causes.
 */
const QUIET_POLL_MS = 5;
const QUIET_FOR_MS = 50;
const QUIET_MAX_MS = 3000;
/** PostgreSQL's lock_not_available: lock_timeout ran out */
const LOCK_NOT_AVAILABLE = "55P03";

export const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** PostgreSQL's text for a range partition's bounds, as days. */
export function partitionBounds(bound: string): { from: string; to: string } | null {
  const m = /FROM \((MINVALUE|'(\d{4}-\d{2}-\d{2})')\) TO \('(\d{4}-\d{2}-\d{2})'\)/.exec(bound);
  if (!m) return null;
  return { from: m[2] ?? "-infinity", to: m[3]! };
}

/**
 * Waits (at most `maxMs`) until no other session of this database has been
 * running a statement for QUIET_FOR_MS.
 */
export async function waitForQuiet(db: SqlRunner, maxMs = QUIET_MAX_MS): Promise<void> {
  const started = Date.now();
  let quietSince: number | null = null;
  while (Date.now() - started < maxMs) {
    const [r] = await query<{ busy: number }>(db, "retention_busy_sessions");
    const now = Date.now();
    if ((r?.busy ?? 0) > 0) quietSince = null;
    else if (quietSince === null) quietSince = now;
    else if (now - quietSince >= QUIET_FOR_MS) return;
    await sleep(QUIET_POLL_MS);
  }
}

/** Detaches one table from its parent (a pending detach: FINALIZE; else CONCURRENTLY), says so, and drops it. */
async function detachAndDrop(db: SqlRunner, parent: string, partition: string, how: "FINALIZE" | "CONCURRENTLY"): Promise<void> {
  await db.$executeRawUnsafe(`ALTER TABLE ${ident(parent)} DETACH PARTITION ${ident(partition)} ${how}`);
  await query(db, "partitions_changed");
  await db.$executeRawUnsafe(`DROP TABLE IF EXISTS ${ident(partition)}`);
}

export async function finishInterruptedDetaches(db: SqlRunner, log: Log): Promise<void> {
  for (const r of await query<{ parent: string; partition: string }>(db, "retention_detach_pending")) {
    log?.("finishing an interrupted detach", { partition: r.partition });
    await detachAndDrop(db, r.parent, r.partition, "FINALIZE");
  }
}

/**
 * What an earlier pass cut off midway left of days past `cutoffDay`: a day
 * still attached to some of the three tables but not all (its detach,
 * one table at a time, stopped between tables; finishInterruptedDetaches
 * cannot see it, since no detach of it is pending), and day tables detached
 * but not dropped. Both hold only rows past retention (a day is detached
 * only once everything that must stay has moved out), so they go now.
 */
export async function removeLeftovers(db: SqlRunner, cutoffDay: string, log: Log): Promise<number> {
  let removed = 0;
  for (const r of await query<{ parent: string; partition: string; bound: string }>(db, "retention_half_detached")) {
    const b = partitionBounds(r.bound);
    if (!b || b.to > cutoffDay) continue;
    log?.("finishing a day an interrupted pass left partly detached", { partition: r.partition });
    await detachAndDrop(db, r.parent, r.partition, "CONCURRENTLY");
    removed++;
  }
  for (const { table } of await query<{ table: string }>(db, "retention_stray_days")) {
    const digits = /_p(\d{4})(\d{2})(\d{2})$/.exec(table);
    if (!digits || `${digits[1]}-${digits[2]}-${digits[3]}` >= cutoffDay) continue;
    log?.("dropping a day's table an interrupted pass detached but did not drop", { table });
    await db.$executeRawUnsafe(`DROP TABLE IF EXISTS ${ident(table)}`);
    removed++;
  }
  return removed;
}

/** The three tables of one day. */
export interface DayTables {
  triggersTable: string;
  executionsTable: string;
  tagsTable: string;
}

/** A day's tables, executions and tag rows first: a reader joining them to triggers never sees rows whose trigger is gone. */
export const tablesOf = (part: DayTables) => [part.executionsTable, part.tagsTable, part.triggersTable];
const PARENTS = ["executions", "trigger_tags", "triggers"] as const;

/**
 * Detaches the days' partitions. Every detach makes each connection that
 * kept a plan over these tables (the scheduler's, /schedule's) plan it again
 * on its next call, which at tens of days costs tens of milliseconds a
 * statement: so all days go in one transaction, one such wave per pass.
 * That transaction holds the three tables exclusively for the few
 * milliseconds a detach takes (40–100 ms for 7 days here), so it starts at
 * a quiet moment (waitForQuiet), between two seconds' firing, and gives up
 * on its lock after DETACH_LOCK_MS so that firing never waits longer; after
 * DETACH_TRIES tries it detaches one table at a time with CONCURRENTLY,
 * which takes no lock that firing waits for, at the cost of a wave each.
 */
export async function detachDays(
  db: SqlRunner,
  parts: DayTables[],
  opts: {
    tries?: number;
    lockMs?: number;
    log?: Log;
    /** wait for a quiet moment first (waitForQuiet); default true */
    quiet?: boolean;
  } = {},
): Promise<void> {
  if (parts.length === 0) return;
  const { tries = DETACH_TRIES, lockMs = DETACH_LOCK_MS, log } = opts;
  const statements = PARENTS.flatMap((parent, i) => parts.map((p) => `ALTER TABLE ${parent} DETACH PARTITION ${ident(tablesOf(p)[i]!)}`));
  if (opts.quiet !== false) await waitForQuiet(db);
  for (let attempt = 1; attempt <= tries; attempt++) {
    const started = Date.now();
    try {
      await db.$executeRawUnsafe("BEGIN");
      await db.$executeRawUnsafe(`SET LOCAL lock_timeout = '${lockMs}ms'`);
      for (const statement of statements) await db.$executeRawUnsafe(statement);
      await query(db, "partitions_changed");
      await db.$executeRawUnsafe("COMMIT");
      log?.("old days detached", { partitions: parts.length, tries: attempt, ms: Date.now() - started });
      return;
    } catch (err) {
      await db.$executeRawUnsafe("ROLLBACK");
      if ((err as { code?: string }).code !== LOCK_NOT_AVAILABLE) throw err;
      await sleep(lockMs * attempt);
    }
  }
  log?.("the tables stayed busy; detaching one at a time", { partitions: parts.length });
  for (const part of parts) {
    for (const [i, parent] of PARENTS.entries()) {
      await db.$executeRawUnsafe(`ALTER TABLE ${parent} DETACH PARTITION ${ident(tablesOf(part)[i]!)} CONCURRENTLY`);
    }
    await query(db, "partitions_changed");
  }
}
