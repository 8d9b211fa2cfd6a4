// Attempts, from queue job to execution row: start each (only from
// `planned`, so an attempt is never sent twice), send it, record the outcome.
// A job's attempts go at the same time, their starts and finishes sharing
// statements (AttemptBatches).
import type { AttemptJob } from "@ttr/core";
import {
  type AttemptRecord,
  type AttemptRef,
  attemptTags,
  executionDay,
  type FinishedAttempt,
  finishAttempts,
  isConflict,
  isDatabaseUnavailable,
  type PgRunner,
  type StartedAttempt,
  startAttempts,
} from "@ttr/db";
import { type BackgroundWork, Batcher, isRedisUnavailable, type Logger, markDropped, markEnded, markStarted, type OutageLog } from "@ttr/platform";
import type { Redis } from "ioredis";
import type { ExecutorEnv } from "./env.js";
import type { Metrics } from "./metrics.js";
import { recordOf } from "./record.js";
import type { AttemptSlots } from "./slots.js";
import { type AttemptResult, classify, sendAttempt } from "./send.js";
import type { Notifier } from "./notify.js";
import type { Signer } from "./signing.js";

export interface WorkerDeps {
  env: ExecutorEnv;
  /** bounds the attempts sent at once (EXECUTOR_CONCURRENCY) */
  slots: AttemptSlots;
  db: PgRunner;
  batches: AttemptBatches;
  redis: Redis;
  log: Logger;
  metrics: Metrics;
  /** PostgreSQL outages, logged once each */
  dbOutage: OutageLog;
  /** Redis refusing the attempts' admission bookkeeping (full, read-only), logged once per outage */
  redisOutage: OutageLog;
  /** the webhook headers of attempts whose policies say to sign */
  sign: Signer;
  /** dead-letter notifications, sent beside the attempts */
  notifier: Notifier;
  /** outcomes being recorded, after their queue jobs are done with */
  recordings: BackgroundWork;
}

/** Longest pause between two tries while PostgreSQL is down. */
const MAX_BACKOFF_MS = 2000;
/** Tries of a statement that PostgreSQL keeps picking as a deadlock's (or serialization failure's) victim. */
const CONFLICT_TRIES = 5;

/** whileDatabaseDown's answer when its `orUntil` said to stop waiting. */
export const GAVE_UP = Symbol("gave up waiting for PostgreSQL");

/**
 * Runs `fn` again until PostgreSQL answers (or, with `orUntil`, until that
 * says to stop waiting: GAVE_UP): while it is down, an attempt
 * neither fails its queue job (which would leave it for the slower lost-job
 * sweep) nor loses its outcome (which would leave it for the reaper). The
 * job stays active, its lock renewed, and goes on within a second or two of
 * the database coming back. A statement rolled back as a deadlock's victim
 * is run again at once, a few times over (it changed nothing, and the
 * other side has gone on by then). Other errors are thrown at once.
 */
export function whileDatabaseDown<T>(outage: OutageLog, fn: () => Promise<T>): Promise<T>;
export function whileDatabaseDown<T>(outage: OutageLog, fn: () => Promise<T>, orUntil: () => boolean): Promise<T | typeof GAVE_UP>;
export async function whileDatabaseDown<T>(outage: OutageLog, fn: () => Promise<T>, orUntil?: () => boolean): Promise<T | typeof GAVE_UP> {
  let pause = 100;
  let conflicts = 0;
  for (;;) {
    try {
      const result = await fn();
      outage.recovered();
      return result;
    } catch (err) {
      if (isConflict(err) && ++conflicts < CONFLICT_TRIES) continue;
      if (!isDatabaseUnavailable(err)) throw err;
      outage.failed(err);
      if (orUntil?.()) return GAVE_UP;
      await new Promise((r) => setTimeout(r, pause));
      pause = Math.min(pause * 2, MAX_BACKOFF_MS);
    }
  }
}

/**
 * The attempt's start and end on its tags' admission counts in Redis. When
 * Redis refuses them (full, read-only) the attempt is still sent and
 * recorded: PostgreSQL holds what is in flight, and the scheduler brings
 * the counts back in line with it within seconds (reconcile, admit.ts).
 * A Redis that does not answer is waited for, as every queue step is.
 */
async function bookkeeping(deps: WorkerDeps, step: Promise<void>): Promise<void> {
  try {
    await step;
    deps.redisOutage.recovered();
  } catch (err) {
    if (!isRedisUnavailable(err)) throw err;
    deps.redisOutage.failed(err);
  }
}

/**
 * Starts and finishes of attempts in flight at about the same time share one
 * statement each (see Batcher): per attempt, the database does a fraction of
 * the work of two single-row statements.
 */
export interface AttemptBatches {
  start: Batcher<AttemptRef, StartedAttempt | undefined>;
  finish: Batcher<AttemptRef & { record: AttemptRecord }, FinishedAttempt>;
}

export function attemptBatches(db: PgRunner, env: ExecutorEnv, metrics: Metrics): AttemptBatches {
  const opts = (statement: string, lingerMs: number) => ({ maxBatch: 200, parallel: 2, lingerMs, onBatch: (n: number) => metrics.batchSize.observe({ statement }, n) });
  return {
    start: new Batcher((refs) => startAttempts(db, refs, env.TTR_DEFAULT_TIMEOUT_SECONDS, env.TTR_REAP_GRACE_SECONDS), opts("start", env.EXECUTOR_DB_LINGER_MS)),
    finish: new Batcher((outcomes) => finishAttempts(db, outcomes), opts("finish", env.EXECUTOR_FINISH_LINGER_MS)),
  };
}

/** The attempt stored under another day than `partDay`, or null if there is none. */
async function storedElsewhere(deps: WorkerDeps, executionId: string, partDay?: string): Promise<AttemptRef | null> {
  const day = await executionDay(deps.db, executionId);
  return day === null || day === partDay ? null : { executionId, partDay: day };
}

/**
 * Starts the job's attempt. The job names the day the attempt is stored
 * under; a job enqueued by a version before jobs named it, or one whose
 * attempt retention has since moved to a newer day, is looked up once.
 */
async function start(deps: WorkerDeps, job: AttemptJob, retried = false): Promise<StartedAttempt | null> {
  const ref = job.partDay === undefined ? await storedElsewhere(deps, job.executionId) : { executionId: job.executionId, partDay: job.partDay };
  if (!ref) return null;
  const started = await deps.batches.start.call(ref);
  if (started) return started;
  const owner = await attemptTags(deps.db, ref);
  if (!owner) {
    const moved = retried ? null : await storedElsewhere(deps, ref.executionId, ref.partDay);
    return moved ? start(deps, moved, true) : null;
  }
  // Cancelled after admission: free what admission reserved, its start too
  // (it never went out). Started elsewhere and ended since: its start stays.
  if (owner.status === "cancelled") await markDropped(deps.redis, deps.env.TTR_REDIS_PREFIX, owner.projectId, owner.tags, ref.executionId);
  else if (owner.status !== "started") await markEnded(deps.redis, deps.env.TTR_REDIS_PREFIX, owner.projectId, owner.tags, ref.executionId);
  deps.log.debug("attempt no longer startable", { executionId: ref.executionId });
  return null;
}

/**
 * The signature headers of an attempt, or the errorMessage of an attempt
 * that cannot be signed and so is not sent at all.
 */
async function signedHeaders(deps: WorkerDeps, started: StartedAttempt): Promise<Array<[string, string]> | string> {
  try {
    return await whileDatabaseDown(deps.dbOutage, () => deps.sign(started.projectId, started.executionId, started.body));
  } catch (err) {
    if ((err as { _tag?: string })._tag !== "SigningFailed") throw err;
    deps.log.error("attempt not sent: signing failed", { executionId: started.executionId, error: (err as Error).message });
    return `Signing failed: ${(err as Error).message}`;
  }
}

/**
 * Sends every attempt of a queue job at the same time, as far as the
 * executor's slots allow (during a shutdown, those still waiting for a slot
 * are left for the scheduler to send again), and resolves once each has
 * been sent or found unable to start. Recording the outcomes goes on in
 * `deps.recordings`, holding neither a slot nor the job: a finish statement
 * waits for others to join it (EXECUTOR_FINISH_LINGER_MS), and that wait
 * should not keep other attempts from being sent. (BullMQ takes another job
 * only when one it holds ends, so a job held until its outcomes were
 * recorded left its attempts' slots empty until then: docs/concepts.md, the
 * queue.) One attempt that fails to start or send (an error other than
 * PostgreSQL being down) does not stop the others; the job then fails,
 * naming them, once all are sent.
 */
export async function processJob(deps: WorkerDeps, attempts: AttemptJob[]): Promise<void> {
  const results = await Promise.allSettled(
    attempts.map(async (a) => {
      const sent = await deps.slots.send(() => startAndSend(deps, a));
      if (sent) deps.recordings.add(recordOutcome(deps, sent), (err) => recordingFailed(deps, sent, err));
    }),
  );
  const failed = results.flatMap((r, i) => (r.status === "rejected" ? [`${attempts[i]?.executionId}: ${(r.reason as Error)?.message ?? String(r.reason)}`] : []));
  if (failed.length > 0) throw new Error(`${failed.length} of ${attempts.length} attempts failed: ${failed.join("; ")}`);
}

/** An attempt sent, with what came back, to be recorded. */
interface SentAttempt {
  started: StartedAttempt;
  result: AttemptResult;
  sentAt: number;
}

/**
 * Starts the attempt and sends it; null when it may not start (see start),
 * or when the executor began shutting down while PostgreSQL was down: an
 * attempt not started yet is left planned for the scheduler to send again,
 * as one still waiting for a slot is (docs/operations.md, stopping).
 */
async function startAndSend(deps: WorkerDeps, job: AttemptJob): Promise<SentAttempt | null> {
  const started = await whileDatabaseDown(deps.dbOutage, () => start(deps, job), () => deps.slots.closed());
  if (!started || started === GAVE_UP) return null;
  const sentAt = Date.now();
  await bookkeeping(deps, markStarted(deps.redis, deps.env.TTR_REDIS_PREFIX, started.projectId, started.tags, started.executionId, sentAt));
  if (started.triggeredBy === "scheduler") deps.metrics.lateness.observe((sentAt - started.dueAt.getTime()) / 1000);
  deps.metrics.inFlight.inc();
  try {
    const signed = started.policies.some((p) => p.signing) ? await signedHeaders(deps, started) : undefined;
    const result: AttemptResult =
      typeof signed === "string"
        ? { kind: "network", errorMessage: signed, timedOut: false }
        : await sendAttempt(
            { method: started.method, url: started.url, headers: started.headers, body: started.body, source: started.source, extraHeaders: signed },
            {
              timeoutSeconds: started.timeoutSeconds,
              blockPrivateNetworks: deps.env.TTR_BLOCK_PRIVATE_NETWORKS,
              allowNetworks: deps.env.TTR_ALLOW_NETWORKS,
              reapGraceSeconds: deps.env.TTR_REAP_GRACE_SECONDS,
            },
          );
    return { started, result, sentAt };
  } finally {
    deps.metrics.inFlight.dec();
  }
}

/**
 * A recording that failed with something other than PostgreSQL being down
 * (which it waits out): the attempt stays started, and the reaper closes it
 * once its time is up (docs/concepts.md, lost attempts).
 */
function recordingFailed(deps: WorkerDeps, { started }: SentAttempt, err: unknown): void {
  const { triggerId, executionId, attemptNumber: attempt } = started;
  deps.log.error("recording an attempt's outcome failed; left for the reaper", { triggerId, executionId, attempt, error: (err as Error)?.message ?? String(err) });
}

/** Records a sent attempt's outcome, frees what admission reserved, logs it. */
async function recordOutcome(deps: WorkerDeps, { started, result, sentAt }: SentAttempt): Promise<void> {
  const { executionId, triggerId, attemptNumber: attempt } = started;
  const outcome = classify(result);
  deps.metrics.attempts.inc({ outcome });
  const record = recordOf(started, result, new Date());
  const ms = Date.now() - sentAt;
  if (!record) {
    deps.log.warn("attempt not recordable; left for the reaper", { triggerId, executionId, attempt, outcome, ms });
    return;
  }
  // Objects here are written out rather than spread with more fields added,
  // which costs V8 (Node 20) far more per attempt (packages/core/src/declare.ts).
  let { recorded, retryExecutionId } = await whileDatabaseDown(deps.dbOutage, () => deps.batches.finish.call({ executionId, partDay: started.partDay, record }));
  let stored = started;
  if (!recorded) {
    // Not found under its day: closed as Executor died, or carried to a newer
    // day by retention while it was in flight (its trigger still pending, it
    // is kept: docs/retention.md). Then it is recorded there.
    const moved = await whileDatabaseDown(deps.dbOutage, () => storedElsewhere(deps, executionId, started.partDay));
    if (moved) {
      ({ recorded, retryExecutionId } = await whileDatabaseDown(deps.dbOutage, () => deps.batches.finish.call({ executionId, partDay: moved.partDay, record })));
      stored = { ...started, partDay: moved.partDay };
    }
  }
  await bookkeeping(deps, markEnded(deps.redis, deps.env.TTR_REDIS_PREFIX, started.projectId, started.tags, executionId));
  if (recorded && record.isDeadLetter) {
    deps.metrics.deadLetters.inc();
    deps.notifier.deadLetter(stored);
  }
  const status = record.responseStatus;
  // A network failure's cause is logged only: its stored message is the same
  // for a refused connection, a DNS failure and a blocked private address.
  const cause = result.kind === "network" ? result.cause : undefined;
  deps.log.info("attempt", { triggerId, executionId, attempt, outcome, ms, status, cause, recorded, retry: retryExecutionId !== null, deadLetter: record.isDeadLetter });
}
