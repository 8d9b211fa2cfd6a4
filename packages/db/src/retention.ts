// Retention (docs/retention.md): history older than the configured number of
// days goes away a whole day partition at a time. For each day partition
// that ended before the cutoff, the few rows that must stay are moved to a
// newer day, then the day's partitions (triggers_pYYYYMMDD,
// executions_pYYYYMMDD and trigger_tags_pYYYYMMDD) are detached without
// blocking firing and dropped.
// No row is deleted one by one except the expired executions of a moved
// trigger, so a pass costs almost nothing whatever the history size.
import { clientRunner, withPgClient } from "./pool.js";
import { query, type SqlRunner } from "./sql.js";

/** The advisory lock that keeps retention passes (scheduler, `ttr prune`) one at a time. */
export const RETENTION_LOCK_KEY = 72707370;
/**
 * The channel partitions_changed.sql notifies on when day partitions are
 * added or detached: every scheduler replica listens on it and plans its
 * loop's statements again at once (docs/storage.md, "Kept plans and
 * connections").
 */
export const PARTITIONS_CHANNEL = "ttr_partitions";
/** days of partitions made ahead of today */
export const PARTITIONS_AHEAD_DAYS = 7;
/** The longest retention that can be asked for (100 years): far longer puts the cutoff before any time PostgreSQL holds. */
export const MAX_RETENTION_DAYS = 36_500;
/** partitions with more rows than this are counted from PostgreSQL's statistics, not row by row */
const EXACT_COUNT_LIMIT = 2_000_000;
/** How long the pass's detach may wait for the tables (firing waits behind it meanwhile), and how often it tries. */
const DETACH_LOCK_MS = 50;
const DETACH_TRIES = 20;
/**
 * Pause between dropping two detached tables. One DROP of all of a pass's
 * tables (21 for 7 days) took 650 ms here, and firing was up to 100 ms
 * later than usual in the second it ran; one table at a time takes 10–50 ms
 * each, and no second stood out.
 */
const DROP_PAUSE_MS = 100;
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
const DAY_MS = 86_400_000;

export interface PruneResult {
  /** executions removed */
  executions: number;
  /** triggers (one-shots and instances) removed */
  triggers: number;
  /** day partitions dropped */
  partitions: number;
  /** triggers moved out of an old partition because they must stay */
  moved: number;
  /** day partitions past the cutoff left for the next pass (rows busy right now) */
  deferred: number;
  /** another pass held the retention lock until `lockWaitMs` ran out: nothing was done */
  locked: boolean;
}

export interface PruneOptions {
  /** remove history that reached a final status longer ago than this; 0 keeps everything */
  olderThanDays: number;
  now?: Date;
  /** rows moved per statement */
  batchSize?: number;
  /** pause between two statements that move rows, so a large pass never crowds out firing */
  pauseMs?: number;
  /** how long to wait for the lock held by another pass; 0: give up at once */
  lockWaitMs?: number;
  /** a holder of the lock whose session has been idle this long runs no pass: it is ended (default 60) */
  staleLockSeconds?: number;
  /** how long to wait for transactions older than the announced cutoff */
  settleTimeoutMs?: number;
  log?: (msg: string, meta?: Record<string, unknown>) => void;
}

interface Partition {
  triggersTable: string;
  executionsTable: string;
  tagsTable: string;
  /** first day, or "-infinity" for the legacy partition */
  from: string;
  /** end day (exclusive) */
  to: string;
  triggerRowsEstimate: number;
  executionRowsEstimate: number;
}

const utcDay = (d: Date) => d.toISOString().slice(0, 10);
const addDays = (day: string, n: number) => utcDay(new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS));
const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** PostgreSQL's text for a range partition's bounds, as days. */
export function partitionBounds(bound: string): { from: string; to: string } | null {
  const m = /FROM \((MINVALUE|'(\d{4}-\d{2}-\d{2})')\) TO \('(\d{4}-\d{2}-\d{2})'\)/.exec(bound);
  if (!m) return null;
  return { from: m[2] ?? "-infinity", to: m[3]! };
}

/** Makes the day partitions from `fromDay` through `PARTITIONS_AHEAD_DAYS` after `now` (missing ones only). */
export async function ensurePartitions(db: SqlRunner, now: Date, fromDay = utcDay(now)): Promise<number> {
  const [row] = await query<{ made: number }>(db, "ensure_partitions", fromDay, addDays(utcDay(now), PARTITIONS_AHEAD_DAYS));
  const made = row?.made ?? 0;
  if (made > 0) await query(db, "partitions_changed");
  return made;
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

async function listPartitions(db: SqlRunner): Promise<Partition[]> {
  const list: Partition[] = [];
  for (const r of await query<Omit<Partition, "from" | "to"> & { bound: string }>(db, "retention_partitions")) {
    const b = partitionBounds(r.bound);
    if (b) list.push({ ...r, ...b });
  }
  return list.sort((a, b) => (a.to < b.to ? -1 : 1));
}

async function finishInterruptedDetaches(db: SqlRunner, log: PruneOptions["log"]): Promise<void> {
  for (const r of await query<{ parent: string; partition: string }>(db, "retention_detach_pending")) {
    log?.("finishing an interrupted detach", { partition: r.partition });
    await db.$executeRawUnsafe(`ALTER TABLE ${ident(r.parent)} DETACH PARTITION ${ident(r.partition)} FINALIZE`);
    await query(db, "partitions_changed");
    await db.$executeRawUnsafe(`DROP TABLE IF EXISTS ${ident(r.partition)}`);
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
async function removeLeftovers(db: SqlRunner, cutoffDay: string, log: PruneOptions["log"]): Promise<number> {
  let removed = 0;
  for (const r of await query<{ parent: string; partition: string; bound: string }>(db, "retention_half_detached")) {
    const b = partitionBounds(r.bound);
    if (!b || b.to > cutoffDay) continue;
    log?.("finishing a day an interrupted pass left partly detached", { partition: r.partition });
    await db.$executeRawUnsafe(`ALTER TABLE ${ident(r.parent)} DETACH PARTITION ${ident(r.partition)} CONCURRENTLY`);
    await query(db, "partitions_changed");
    await db.$executeRawUnsafe(`DROP TABLE IF EXISTS ${ident(r.partition)}`);
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

/** Waits until no transaction that began before `since` is open (or the timeout passed: false). */
async function settle(db: SqlRunner, since: Date, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [r] = await query<{ open: number }>(db, "retention_older_transactions", since);
    if (!r || r.open === 0) return true;
    if (Date.now() >= deadline) return false;
    await sleep(100);
  }
}

/**
 * One retention pass. Takes the retention lock for its whole duration, so
 * passes never overlap; returns zeros when another pass holds it and
 * `lockWaitMs` ran out.
 */
export async function prune(databaseUrl: string, opts: PruneOptions): Promise<PruneResult> {
  return withPgClient(databaseUrl, (client) => pass(clientRunner(client), opts), "ttr-retention");
}

async function pass(db: SqlRunner, opts: PruneOptions): Promise<PruneResult> {
  const result: PruneResult = { executions: 0, triggers: 0, partitions: 0, moved: 0, deferred: 0, locked: false };
  const now = opts.now ?? new Date();
  const log = opts.log;
  await db.$executeRawUnsafe("SET lock_timeout = '10s'");
  if (!(await lock(db, opts.lockWaitMs ?? 0, opts.staleLockSeconds ?? STALE_LOCK_SECONDS))) {
    log?.("another retention pass is running; skipped");
    result.locked = true;
    return result;
  }
  const steps = stepTimer();
  try {
    await finishInterruptedDetaches(db, log);
    await query(db, "retention_attempt_minutes", now);
    const today = utcDay(now);
    if (opts.olderThanDays <= 0) {
      await ensurePartitions(db, now);
      return result;
    }
    const cutoff = new Date(now.getTime() - opts.olderThanDays * DAY_MS);
    await removeLeftovers(db, utcDay(cutoff), log);
    // Survivors move to the day they became final (after the cutoff: that
    // is why they survive) or to today, so every day from the cutoff's on
    // needs its own partition. Gaps are filled from there, not from the
    // oldest partition: a day before the cutoff would only be made to be
    // dropped in the same pass, each costing DDL that makes every connection
    // plan its statements again.
    const oldest = (await listPartitions(db))[0];
    const firstNeeded = [oldest?.to ?? today, utcDay(cutoff)].sort()[1]!;
    await ensurePartitions(db, now, firstNeeded < today ? firstNeeded : today);
    steps.end("prepare");
    const due = (await listPartitions(db)).filter((p) => p.to <= utcDay(cutoff));
    const announced = new Date();
    await query(db, "retention_set_cutoff", cutoff);
    const settled = await settle(db, announced, opts.settleTimeoutMs ?? 30_000);
    steps.end("settle");
    if (!settled) {
      log?.("transactions older than the cutoff announcement are still open; nothing dropped this pass");
      result.deferred = due.length;
      return result;
    }
    const ready: Array<{ part: Partition; triggers: number; executions: number }> = [];
    for (const part of due) {
      const counted = await evacuate(db, part, cutoff, today, opts.batchSize ?? 1000, opts.pauseMs ?? 0, result, log);
      if (counted) ready.push({ part, ...counted });
      else result.deferred++;
    }
    steps.end("move");
    await detachDays(db, ready.map((r) => r.part), { log });
    steps.end("detach");
    // Detached, the tables are no longer read by anything that fires; each
    // is dropped on its own, so the work of removing them is spread out.
    for (const [i, table] of ready.flatMap((r) => tablesOf(r.part)).entries()) {
      if (i > 0) await sleep(DROP_PAUSE_MS);
      await db.$executeRawUnsafe(`DROP TABLE ${ident(table)}`);
    }
    steps.end("drop");
    if (ready.length > 0) log?.("retention pass steps", steps.ms);
    for (const { part, triggers, executions } of ready) {
      result.triggers += Math.round(triggers);
      result.executions += Math.round(executions);
      result.partitions++;
      log?.("day partition removed", { partition: part.triggersTable, triggers, executions });
    }
    return result;
  } finally {
    await query(db, "retention_unlock", RETENTION_LOCK_KEY).catch(() => {});
  }
}

/**
 * Milliseconds spent in each step of a pass, in order: prepare (finish
 * interrupted detaches, remove old per-minute counts, make missing days),
 * settle, move (survivors out of the old days), detach, drop.
 */
function stepTimer() {
  const ms: Record<string, number> = {};
  let mark = Date.now();
  return {
    ms,
    end(step: string) {
      const t = Date.now();
      ms[step] = t - mark;
      mark = t;
    },
  };
}

/**
 * Takes the retention lock, waiting up to `waitMs` for the pass that holds
 * it. A holder whose session has sat idle for a minute runs no pass any
 * more (a frozen scheduler keeps its connection, and with it the lock, for
 * as long as it is frozen): its session is ended and the lock taken.
 */
/** A running pass sends a statement at least every few seconds; a holder idle this long is gone. */
const STALE_LOCK_SECONDS = 60;

async function lock(db: SqlRunner, waitMs: number, staleSeconds: number): Promise<boolean> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const [r] = await query<{ ok: boolean }>(db, "retention_lock", RETENTION_LOCK_KEY);
    if (r?.ok) return true;
    const ended = await query<{ ended: boolean }>(db, "retention_end_stale_holder", RETENTION_LOCK_KEY, staleSeconds);
    if (Date.now() >= deadline) return false;
    if (ended.some((r) => r.ended)) {
      // its backend takes a moment to exit and let go of the lock
      await sleep(200);
      continue;
    }
    await sleep(200);
  }
}

/**
 * Moves the partition's survivors out; answers how many rows it then holds
 * (counted exactly when small, else PostgreSQL's estimate), or null when
 * something must stay for now.
 */
async function evacuate(
  db: SqlRunner,
  part: Partition,
  cutoff: Date,
  today: string,
  batch: number,
  pauseMs: number,
  result: PruneResult,
  log: PruneOptions["log"],
): Promise<{ triggers: number; executions: number } | null> {
  for (;;) {
    const ids = (await query<{ id: string }>(db, "retention_survivors", part.from, part.to, cutoff, batch)).map((r) => r.id);
    if (ids.length === 0) break;
    const [m] = await query<{ moved: number; expired: number }>(db, "retention_move", ids, part.from, part.to, cutoff, today);
    result.moved += m?.moved ?? 0;
    result.executions += m?.expired ?? 0;
    if ((m?.moved ?? 0) < ids.length) {
      log?.("rows of an old partition are busy; it waits for the next pass", { partition: part.triggersTable });
      return null;
    }
    if (pauseMs > 0) await sleep(pauseMs);
  }
  const exact = part.triggerRowsEstimate + part.executionRowsEstimate <= EXACT_COUNT_LIMIT;
  const [count] = exact
    ? await query<{ triggers: number; executions: number }>(db, "retention_count", part.from, part.to)
    : [{ triggers: part.triggerRowsEstimate, executions: part.executionRowsEstimate }];
  return { triggers: count?.triggers ?? 0, executions: count?.executions ?? 0 };
}

/** The three tables of one day. */
export type DayTables = Pick<Partition, "executionsTable" | "tagsTable" | "triggersTable">;

/** A day's tables, executions and tag rows first: a reader joining them to triggers never sees rows whose trigger is gone. */
const tablesOf = (part: DayTables) => [part.executionsTable, part.tagsTable, part.triggersTable];
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
    log?: PruneOptions["log"];
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
