// Retention (docs/retention.md): history older than the configured number of
// days goes away a whole day partition at a time. For each day partition
// that ended before the cutoff, the few rows that must stay are moved to a
// newer day, then the day's partitions (triggers_pYYYYMMDD,
// executions_pYYYYMMDD and trigger_tags_pYYYYMMDD) are detached without
// blocking firing and dropped.
// No row is deleted one by one except the expired executions of a moved
// trigger, so a pass costs almost nothing whatever the history size.
import { clientRunner, withPgClient } from "./pool.js";
import { type DayTables, detachDays, finishInterruptedDetaches, ident, partitionBounds, removeLeftovers, sleep, tablesOf } from "./day-tables.js";
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
/**
 * Pause between dropping two detached tables. One DROP of all of a pass's
 * tables (21 for 7 days) took 650 ms here, and firing was up to 100 ms
 * later than usual in the second it ran; one table at a time takes 10–50 ms
 * each, and no second stood out.
 */
const DROP_PAUSE_MS = 100;
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
  /** day partitions past the cutoff left for the next pass (a transaction older than the pass still open, or rows locked right now) */
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

interface Partition extends DayTables {
  /** first day, or "-infinity" for the legacy partition */
  from: string;
  /** end day (exclusive) */
  to: string;
  triggerRowsEstimate: number;
  executionRowsEstimate: number;
}

const utcDay = (d: Date) => d.toISOString().slice(0, 10);
const addDays = (day: string, n: number) => utcDay(new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS));

/** Makes the day partitions from `fromDay` through `PARTITIONS_AHEAD_DAYS` after `now` (missing ones only). */
export async function ensurePartitions(db: SqlRunner, now: Date, fromDay = utcDay(now)): Promise<number> {
  const [row] = await query<{ made: number }>(db, "ensure_partitions", fromDay, addDays(utcDay(now), PARTITIONS_AHEAD_DAYS));
  const made = row?.made ?? 0;
  if (made > 0) await query(db, "partitions_changed");
  return made;
}

async function listPartitions(db: SqlRunner): Promise<Partition[]> {
  const list: Partition[] = [];
  for (const r of await query<Omit<Partition, "from" | "to"> & { bound: string }>(db, "retention_partitions")) {
    const b = partitionBounds(r.bound);
    if (b) list.push({ ...r, ...b });
  }
  return list.sort((a, b) => (a.to < b.to ? -1 : 1));
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
