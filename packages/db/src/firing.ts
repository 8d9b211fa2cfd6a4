// The firing pipeline's state changes (docs/concepts.md: how a
// trigger fires, states): the scheduler promotes, plans and dispatches; the executor starts
// and finishes attempts; the reaper closes lost ones. One statement each.
import { nextRunAfterSkips, type RetryFields } from "@ttr/core";
import { skipThroughOnCancel } from "@ttr/core/cron-next";
import type { PgRunner } from "./pool.js";
import { execute, query, queryOne, type SqlRunner } from "./sql.js";

/** A planned attempt, named by its execution and the day it is stored under (`YYYY-MM-DD`). */
export interface AttemptRef {
  executionId: string;
  partDay: string;
}

/** The ids and the distinct days of `refs`, as the statements that take both want them. */
function idsAndDays(refs: AttemptRef[]): [string[], string[]] {
  return [refs.map((r) => r.executionId), [...new Set(refs.map((r) => r.partDay))]];
}

/** `items` grouped by `key`, in their order within each group. */
function groupBy<T>(items: T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const same = groups.get(key(item));
    if (same) same.push(item);
    else groups.set(key(item), [item]);
  }
  return groups;
}

const byDay = <T extends AttemptRef>(items: T[]) => groupBy(items, (item) => item.partDay);

export interface PromotedTrigger extends AttemptRef {
  triggerId: string;
  generatorId: string | null;
  scheduledAt: Date;
  /** untagged: already marked dispatched, to be enqueued by the caller */
  dispatched: boolean;
}

/**
 * Claims up to `limit` due triggers and promotes them. Run it in a
 * transaction: the claim's row locks then hold until the promotion commits.
 */
export async function promoteDue(db: SqlRunner, now: Date, limit: number): Promise<PromotedTrigger[]> {
  const due = await query<{ id: string; partDay: string }>(db, "claim_due", now, limit);
  if (due.length === 0) return [];
  return query<PromotedTrigger>(db, "promote_due", due.map((d) => d.id), [...new Set(due.map((d) => d.partDay))]);
}

export interface GeneratorSchedule {
  id: string;
  cronExpr: string;
  tz: string;
  /** its latest run cancelled on its own (skip_cancelled_runs.sql), if any */
  skipThrough: Date | null;
}

/** `skipLocked`: leave out those another transaction holds (lock_free_active_generators.sql), for the scheduler. */
export const lockActiveGenerators = (db: SqlRunner, ids: string[], skipLocked = false) =>
  query<GeneratorSchedule>(db, skipLocked ? "lock_free_active_generators" : "lock_active_generators", ids);
export const generatorsWithoutPending = (db: SqlRunner, limit: number) => query<GeneratorSchedule>(db, "generators_without_pending", limit);

export async function createNextInstances(db: SqlRunner, next: Array<{ generatorId: string; at: Date }>): Promise<number> {
  if (next.length === 0) return 0;
  const rows = await query(db, "create_next_instances", next.map((n) => n.generatorId), next.map((n) => n.at.toISOString()));
  return rows.length;
}

/**
 * Creates the pending instance of each of these recurring triggers that is
 * still active and has none, in the caller's transaction, at its next run:
 * strictly after `now` (after an interruption only the pending instance
 * fires late and the missed runs are skipped) and after its runs cancelled
 * on their own (docs/concepts.md). Locks them first, so that an edit
 * through /schedule or /declare and this serialize. `onCronError` hears of
 * a stored expression that yields no next run; that one gets no instance
 * (without it, the scheduler's sweep logs it later).
 */
export async function createInstancesAfter(
  tx: SqlRunner,
  generatorIds: string[],
  now: Date,
  onCronError: (generatorId: string, err: Error) => void = () => {},
  skipLocked = false,
): Promise<number> {
  if (generatorIds.length === 0) return 0;
  const next: Array<{ generatorId: string; at: Date }> = [];
  for (const g of await lockActiveGenerators(tx, [...new Set(generatorIds)], skipLocked)) {
    try {
      next.push({ generatorId: g.id, at: nextRunAfterSkips(g.cronExpr, g.tz, now, g.skipThrough) });
    } catch (err) {
      onCronError(g.id, err as Error);
    }
  }
  return createNextInstances(tx, next);
}

/**
 * Instances among `rows` that were cancelled by their own ID (DELETE /cancel,
 * the dashboard, a /bulk cancel by ID): their runs stay cancelled, and each
 * recurring trigger's next instance, after them, is created in the same
 * transaction, so one is pending at every moment (docs/concepts.md).
 */
export async function skipCancelledRuns(tx: SqlRunner, rows: Array<{ id: string; partDay: string }>): Promise<void> {
  if (rows.length === 0) return;
  const now = new Date();
  const cancelled = await query<GeneratorSchedule & { instanceAt: Date }>(
    tx,
    "lock_cancelled_runs",
    rows.map((r) => r.id),
    [...new Set(rows.map((r) => r.partDay))],
  );
  // A stored expression without a next run skips nothing (no next instance can be planned for it either).
  const through = cancelled.map((g) => {
    try {
      return skipThroughOnCancel(g.cronExpr, g.tz, now, g.skipThrough, g.instanceAt);
    } catch {
      return g.skipThrough;
    }
  });
  const changed = await query<{ id: string }>(tx, "skip_cancelled_runs", cancelled.map((g) => g.id), through);
  await createInstancesAfter(tx, changed.map((g) => g.id), now);
}

export interface DispatchCandidate extends AttemptRef {
  projectId: string;
  tags: string[];
  plannedAt: Date;
}

export const selectDispatchable = (db: SqlRunner, now: Date, limit: number) => query<DispatchCandidate>(db, "select_dispatchable", now, limit);

export interface HeldCandidate extends DispatchCandidate {
  heldBy: string;
}

/** `skip`: `project:tag` groups not to look at now. */
export function selectHeld(db: SqlRunner, now: Date, perGroup: number, skip: Iterable<string> = []): Promise<HeldCandidate[]> {
  const projects: string[] = [];
  const tags: string[] = [];
  for (const pt of skip) {
    projects.push(pt.slice(0, 36));
    tags.push(pt.slice(37));
  }
  return query<HeldCandidate>(db, "select_held", now, perGroup, projects, tags);
}

/** Parks attempts under the tag that held each back (one statement per tag). */
export async function holdAttempts(db: SqlRunner, held: Array<AttemptRef & { tag: string }>): Promise<number> {
  let changed = 0;
  for (const [tag, refs] of groupBy(held, (h) => h.tag)) changed += await execute(db, "hold_attempts", ...idsAndDays(refs), tag);
  return changed;
}

/** Marks admitted attempts as handed to the queue; answers the ids marked (those still planned). */
export async function markDispatched(db: SqlRunner, refs: AttemptRef[]): Promise<string[]> {
  if (refs.length === 0) return [];
  return (await query<{ id: string }>(db, "mark_dispatched", ...idsAndDays(refs))).map((r) => r.id);
}

export const staleDispatched = (db: SqlRunner, before: Date, limit: number) => query<AttemptRef>(db, "stale_dispatched", before, limit);

/** How many attempts wait in the queue for an executor (queue_depth.sql). */
export async function queueDepth(db: SqlRunner): Promise<number> {
  return (await queryOne<{ depth: number }>(db, "queue_depth"))?.depth ?? 0;
}

export interface QueuedAttempt extends AttemptRef {
  plannedAt: Date;
}

/** One page of the attempts the queue should hold, oldest due first, after `after` (in_queue_attempts.sql). */
export const inQueueAttempts = (db: SqlRunner, before: Date, limit: number, after: QueuedAttempt | null) =>
  query<QueuedAttempt>(db, "in_queue_attempts", before, limit, after?.plannedAt ?? null, after?.executionId ?? null);

export interface ReapedAttempt {
  executionId: string;
  triggerId: string;
  projectId: string;
  tags: string[];
}

export const reapLost = (db: SqlRunner, now: Date, limit: number) => query<ReapedAttempt>(db, "reap_lost", now, limit);

export interface StartedAttempt extends AttemptRef {
  triggerId: string;
  projectId: string;
  attemptNumber: number;
  triggeredBy: "scheduler" | "retry" | "replay";
  startedAt: Date;
  timeoutSeconds: number;
  url: string;
  method: string;
  headers: Array<[string, string]>;
  body: Uint8Array | null;
  source: "schedule" | "item";
  scheduledAt: Date;
  /** when it was first due: scheduledAt, or its creation when made for a time already past (`ttr-run-missed`) */
  dueAt: Date;
  tags: string[];
  policies: AttemptPolicy[];
}

/** What an attempt reads of each of its tags' policies when it starts. */
export interface AttemptPolicy extends RetryFields {
  tag: string;
  signing: boolean;
  honorRetryAfter: boolean;
  notifyUrl: string | null;
}

/**
 * Starts many planned attempts with one statement per day they are stored
 * under (usually one); answers, per attempt in order, the request to send,
 * or undefined when that attempt may not start.
 */
export async function startAttempts(db: PgRunner, refs: AttemptRef[], defaultTimeout: number, reapGrace: number): Promise<Array<StartedAttempt | undefined>> {
  const byId = new Map<string, StartedAttempt>();
  for (const [day, same] of byDay(refs)) {
    const rows = await db.named<StartedAttempt>("start_attempts", [same.map((r) => r.executionId), day, defaultTimeout, reapGrace]);
    for (const row of rows) byId.set(row.executionId, row);
  }
  return refs.map((r) => byId.get(r.executionId));
}

export interface AttemptRecord {
  completedAt: Date;
  responseStatus: number | null;
  responseHeaders: Record<string, string> | null;
  responseBody: string | null;
  responseSize: number | null;
  errorMessage: string | null;
  isDeadLetter: boolean;
  /** when the next attempt is due; null when there is none */
  retryAt: Date | null;
}

export interface FinishedAttempt {
  /** false when the attempt had already been closed as Executor died */
  recorded: boolean;
  retryExecutionId: string | null;
}

/** Records many attempts' outcomes with one statement per day they are stored under; answers per input, in order. */
export async function finishAttempts(db: PgRunner, outcomes: Array<AttemptRef & { record: AttemptRecord }>): Promise<FinishedAttempt[]> {
  const byId = new Map<string, string | null>();
  for (const [day, same] of byDay(outcomes)) {
    const column = <T>(pick: (r: AttemptRecord) => T) => same.map((o) => pick(o.record));
    const rows = await db.named<{ executionId: string; retryExecutionId: string | null }>("finish_attempts", [
      same.map((o) => o.executionId),
      column((r) => r.completedAt),
      column((r) => r.responseStatus),
      column((r) => (r.responseHeaders === null ? null : JSON.stringify(r.responseHeaders))),
      column((r) => r.responseBody),
      column((r) => r.responseSize),
      column((r) => r.errorMessage),
      column((r) => r.isDeadLetter),
      column((r) => r.retryAt),
      day,
    ]);
    // a recorded attempt comes once with no retry, and once more with its retry if one was planned
    for (const row of rows) if (row.retryExecutionId !== null || !byId.has(row.executionId)) byId.set(row.executionId, row.retryExecutionId);
  }
  return outcomes.map((o) => ({ recorded: byId.has(o.executionId), retryExecutionId: byId.get(o.executionId) ?? null }));
}

export interface LimitingPolicy {
  projectId: string;
  tag: string;
  throughput: Record<string, number> | null;
  maxConcurrent: number | null;
  /** a paused tag holds every attempt back, whatever its limits say */
  paused: boolean;
}

export const limitingPolicies = (db: SqlRunner) => query<LimitingPolicy>(db, "limiting_policies");

export async function inFlightForTag(db: SqlRunner, projectId: string, tag: string): Promise<string[]> {
  return (await query<{ id: string }>(db, "in_flight_for_tag", projectId, tag)).map((r) => r.id);
}

/** A project's tag's most recent starts since `since`, newest first, at most `limit` (an admitted attempt not yet started counts from its hand-over). */
export const tagRecentStarts = (db: SqlRunner, projectId: string, tag: string, since: Date, limit: number) =>
  query<{ id: string; startedAt: Date }>(db, "tag_recent_starts", projectId, tag, since, limit);

export const attemptTags = (db: SqlRunner, ref: AttemptRef) =>
  queryOne<{ projectId: string; tags: string[]; status: string }>(db, "attempt_tags", ref.executionId, ref.partDay);

/** The day an attempt is stored under, for a queue job enqueued without it; null if there is no such attempt. */
export async function executionDay(db: SqlRunner, executionId: string): Promise<string | null> {
  return (await queryOne<{ partDay: string }>(db, "execution_day", executionId))?.partDay ?? null;
}

export async function countHeld(db: SqlRunner, now: Date): Promise<number> {
  return (await queryOne<{ held: number }>(db, "count_held", now))?.held ?? 0;
}

/** The largest backlogs of held attempts, per project and tag, at most `limit` of them. */
export const countHeldByTag = (db: SqlRunner, now: Date, limit: number) => query<{ projectId: string; tag: string; held: number }>(db, "count_held_by_tag", now, limit);

export async function nextPlannedAt(db: SqlRunner, now: Date): Promise<Date | null> {
  return (await queryOne<{ nextAt: Date | null }>(db, "next_planned_at", now))?.nextAt ?? null;
}

const LONG_AGO = new Date(0);
const FAR_AHEAD = new Date(8.64e15);

/**
 * Runs the statements the scheduler's loop keeps plans for (each tick's
 * reads, the claim, the queue's recovery and the sweeps' reads) with
 * values that match nothing, or one row at most, so that PostgreSQL plans
 * them now. After day partitions were added or detached, their first call
 * plans them again: about 80 ms over 70 days, which this moves out of the
 * next tick; on a new connection, about 0.3 s (docs/storage.md, "Kept plans
 * and connections"). It changes and locks nothing.
 */
export async function planLoopStatements(db: SqlRunner): Promise<void> {
  await query(db, "claim_due", LONG_AGO, 1);
  await selectHeld(db, LONG_AGO, 1);
  await selectDispatchable(db, LONG_AGO, 1);
  await nextPlannedAt(db, FAR_AHEAD);
  await countHeld(db, LONG_AGO);
  await countHeldByTag(db, LONG_AGO, 1);
  await staleDispatched(db, LONG_AGO, 1);
  await inQueueAttempts(db, LONG_AGO, 1, null);
  await generatorsWithoutPending(db, 1);
}
