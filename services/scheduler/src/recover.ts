// Work the queue lost (RELIABILITY.md, "Lost queue work"). An attempt is
// marked dispatched in PostgreSQL before its job is added to Redis, so
// PostgreSQL knows what the queue should hold: when Redis may have lost
// jobs, every attempt dispatched and not started is added again, oldest due
// first, except those a live job still carries. The executor starts an
// attempt only from `planned`, so nothing is ever sent twice.
//
// "May have lost": the marker key this module keeps in Redis is gone
// (FLUSHALL, a restart without persistence: checked at every tick), the
// connection came back after an outage (a restart with persistence can
// still lose its last second), an enqueue failed, or this replica has just
// become the active one (its predecessor may have died between a commit and
// its enqueue).
import { inQueueAttempts, LeaseLost, type QueuedAttempt } from "@ttr/db";
import type { Deps } from "./deps.js";
import { attemptsInQueue, enqueue, requeueLost } from "./dispatch.js";

/** Attempts read and added per round trip. */
const PAGE = 5000;
/** Queue jobs of each state read to learn what they carry: 2,000,000 attempts in jobs of 20. */
const RECOVERY_LISTED = 100_000;
/**
 * After an outage, how long executors get to go on with the jobs they held
 * before those still not started are taken for stuck (requeueLost).
 */
const RECONNECT_GRACE_MS = 3000;

export class QueueRecovery {
  private requested: string | null = "became the active scheduler";
  /** the queue's data went, and the tag limits' state or the queue's order is not put right yet */
  private lossPending = false;
  /** jobs taken before `since` and still not started at `at` are stuck */
  private stuckCheck: { at: number; since: Date } | null = null;

  constructor(private readonly deps: Omit<Deps, "recovery">) {}

  private get marker(): string {
    return `${this.deps.env.TTR_REDIS_PREFIX}:ttr:queue-marker`;
  }

  /** The queue may have lost jobs: look at the next tick. */
  request(reason: string): void {
    this.requested ??= reason;
  }

  /**
   * Redis answers again after an outage. Besides what a restart may have
   * lost, a job taken just before it (its answer lost with the connection)
   * is held by nobody: those still not started a few seconds on get a copy.
   */
  redisReturned(): void {
    this.request("Redis is back after an outage");
    this.stuckCheck = { at: Date.now() + RECONNECT_GRACE_MS, since: new Date() };
  }

  /** At the start of each tick: sends again what the queue should hold if it may have lost any. Returns how many. */
  async run(now: Date): Promise<number> {
    const { deps } = this;
    if (this.stuckCheck && now.getTime() >= this.stuckCheck.at) {
      const { since } = this.stuckCheck;
      const copied = await requeueLost(deps, since, since);
      this.stuckCheck = null;
      if (copied > 0) deps.log.info("jobs not started since before the Redis outage, sent again", { attempts: copied });
    }
    const emptied = (await deps.redis.exists(this.marker)) === 0;
    if (emptied) this.lossPending = true;
    const reason = this.requested ?? (emptied ? "the queue's data is gone (flushed, or Redis restarted empty)" : null);
    if (reason === null) return 0;
    this.requested = reason;
    // Set first: a loss from now on removes it again and is seen next tick.
    await deps.redis.set(this.marker, now.toISOString());
    // The limits' state went with the data: back before this tick admits;
    // and the jobs added since the loss go behind the lost ones. Until both
    // are done, every tick tries again (the marker alone would not say).
    let reordered = 0;
    if (this.lossPending) {
      await deps.admission.restore(now);
      reordered = await this.takeOutWaiting();
      this.lossPending = false;
    }
    // What live jobs still carry stays where it is (jobs of several
    // attempts are not known by an attempt's id, so adding would not be a
    // no-op). Read much further than the periodic sweep does: this runs
    // rarely, and what it misses of a backlog it would add a second time.
    const queued = await attemptsInQueue(deps, undefined, RECOVERY_LISTED);
    let sent = 0;
    let after: QueuedAttempt | null = null;
    for (;;) {
      const page = await inQueueAttempts(deps.db, now, PAGE, after);
      if (page.length === 0) break;
      if (!deps.lease.held()) throw new LeaseLost("recovery");
      const missing = page.filter((a) => !queued.has(a.executionId));
      await enqueue(deps, missing);
      // (with the jobs taken out above to go behind them: docs/operations.md)
      deps.metrics.requeued.inc(missing.length);
      sent += missing.length;
      after = page[page.length - 1] ?? null;
      if (page.length < PAGE) break;
    }
    this.requested = null;
    deps.log.info("queue checked against PostgreSQL", { reason, attempts: sent, reordered, ms: Date.now() - now.getTime() });
    return sent;
  }

  /**
   * After the queue's data went, what waits in it was added since: jobs a
   * tick dispatched between the loss and this check, due later than those
   * lost. Added back behind them, the lost ones would go out after them; so
   * the waiting ones are taken out (all are dispatched and not started in
   * PostgreSQL, so the pass that follows adds them back in due order).
   * A job an executor has just taken is locked and stays. More waiting jobs
   * than a page means the queue was not emptied after all: left alone.
   */
  private async takeOutWaiting(): Promise<number> {
    const { queue } = this.deps;
    const kinds = ["wait", "prioritized"] as const;
    if ((await queue.getJobCountByTypes(...kinds)) > PAGE) return 0;
    const ids = await queue.getRanges([...kinds], 0, PAGE - 1);
    const removed = await Promise.all(ids.map((id) => queue.remove(id)));
    return removed.filter((n) => n === 1).length;
  }
}
