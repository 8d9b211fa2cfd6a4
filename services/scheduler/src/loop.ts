// The active scheduler's loop. Ticks are aligned to the wall clock (every
// SCHEDULER_TICK_MS, a few ms after the boundary), so a trigger due at a
// second is claimed right after that second starts: never before it
// (docs/concepts.md), and usually within milliseconds.
import { countHeld, countHeldByTag, isDatabaseUnavailable, LeaseLost, nextPlannedAt, planLoopStatements } from "@ttr/db";
import { isRedisUnavailable, OutageLog } from "@ttr/platform";
import type { Deps } from "./deps.js";
import { HELD_TAGS_SHOWN } from "./metrics.js";
import { dispatchBatch, dispatchHeld, requeueLost, STALE_AFTER_MS } from "./dispatch.js";
import { promoteBatch } from "./promote.js";
import { reap } from "./reaper.js";
import { ensurePendingInstances } from "./recurring.js";
import { StepTimer } from "./slow.js";

const SWEEP_EVERY_MS = 5000;
/**
 * No attempt is closed as Executor died in the first seconds after this
 * scheduler became the active one, or after a tick found PostgreSQL
 * unreachable. After an outage, every attempt in flight during it is past
 * its reap time, while the executors that sent them are alive and still
 * trying to record their outcomes (with waits of up to 2 s between tries):
 * they get this long to do so first.
 */
export const REAP_SETTLE_MS = 10_000;
/** How many times a tick's first batch doubling may reach. */
const BATCH_GROWTH = 10;
/** No statement claims more than this, whatever SCHEDULER_BATCH_SIZE says. */
const LARGEST_BATCH = 10_000;

/**
 * The batches of one tick for SCHEDULER_BATCH_SIZE `size` (100 by default).
 * The first is `size`: small, so that the first attempts of a second reach
 * the executors within milliseconds. Each full batch doubles the next, up to
 * `largest` (1,000 by default), so a second with thousands due takes a few
 * large transactions rather than dozens of small ones (docs/configuration.md).
 */
export function batchLimits(size: number): { first: number; largest: number } {
  const largest = Math.min(size * BATCH_GROWTH, LARGEST_BATCH);
  return { first: Math.min(size, largest), largest };
}
const REQUEUE_EVERY_MS = 5000;
/**
 * A tick still running after this long says so in the log, and again as long
 * as it goes on. Each statement has a 10-s timeout, so a tick this long waits
 * on several slow statements or on Redis, whose commands wait for as long as
 * it takes; without the line, such a stall would be silent.
 */
export const STILL_RUNNING_MS = 10_000;
/** past the boundary, so rows stored at the boundary's second are due */
const ALIGN_SLACK_MS = 3;

/** Why the loop plans its statements ahead (the log line's `reason`). */
export type PlanReason = "start" | "partitions changed" | "leadership reconnected";

export class SchedulerLoop {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private active = false;
  private lastSweep = 0;
  /** no attempt is reaped before this time (Date.now() time; REAP_SETTLE_MS) */
  private reapFrom = 0;
  private lastRequeue = Date.now();
  /** a planned attempt due before the next aligned tick */
  private wakeAt: number | null = null;
  /** when the planned tick's timer should fire (Date.now() time) */
  private timerDue = 0;
  private readonly outage: OutageLog;
  /** Redis refusing the tick's work (full, read-only, loading): logged when it starts and when it ends */
  private readonly redisOutage: OutageLog;
  /** the steps of the running tick's firing work, then of its sweeps */
  private current: { phase: "firing" | "sweeps"; steps: StepTimer } | null = null;
  /** the running tick's own timer (kept through its sweeps), null between ticks */
  private tickSteps: StepTimer | null = null;
  /** why the statements are to be planned again, if they are */
  private replanWanted: PlanReason | null = null;
  /** planning them, between two ticks */
  private planning: Promise<void> | null = null;

  constructor(private readonly deps: Deps) {
    this.outage = new OutageLog(deps.log, "postgres", { connection: "ttr-scheduler" });
    this.redisOutage = new OutageLog(deps.log, "redis", { connection: "ttr-scheduler" });
  }

  start(): void {
    if (this.active) return;
    this.active = true;
    this.reapFrom = Date.now() + REAP_SETTLE_MS;
    this.deps.recovery.request("became the active scheduler");
    this.next();
  }

  /** Stops after the tick in progress, if any. */
  async stop(): Promise<void> {
    this.active = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
    await this.planning;
  }

  /**
   * Plans the loop's kept statements now, between two ticks (or right
   * after the running one), so that no tick's firing waits for it
   * (docs/storage.md, "Kept plans and connections"): at process start, so
   * that a standby that takes over has its plans made, and when day
   * partitions were added or detached (partitions_changed.sql), after
   * which PostgreSQL would plan them again on their next call, about 80 ms
   * over 70 days; and when the leadership's connection, which hears of
   * those changes, was made again (a notice may have been missed, and a
   * database that restarted left the loop's pool no connection).
   */
  planStatements(reason: PlanReason): void {
    this.replanWanted = reason;
    if (this.running === null) this.planAhead();
  }

  private planAhead(): void {
    const reason = this.replanWanted;
    if (reason === null || this.planning !== null) return;
    this.replanWanted = null;
    const started = Date.now();
    this.planning = planLoopStatements(this.deps.db)
      .then(() => void this.deps.log.info("planned the loop's statements", { reason, ms: Date.now() - started }))
      // a database that is down is the next tick's to report
      .catch(() => {})
      .finally(() => {
        this.planning = null;
        // asked again meanwhile: what was planned may predate the change
        if (this.running === null) this.planAhead();
      });
  }

  /** Plans the next tick; never two at once (a tick still running when leadership comes back plans its own successor). */
  private next(): void {
    if (!this.active || this.timer !== null) return;
    const tick = this.deps.env.SCHEDULER_TICK_MS;
    const now = Date.now();
    let wait = (Math.floor(now / tick) + 1) * tick + ALIGN_SLACK_MS - now;
    if (this.wakeAt !== null) wait = Math.max(0, Math.min(wait, this.wakeAt + 1 - now));
    this.timerDue = now + wait;
    this.timer = setTimeout(() => {
      this.timer = null;
      if (this.running) return;
      this.running = this.tick().finally(() => {
        this.running = null;
        this.planAhead();
        this.next();
      });
    }, wait);
  }

  /**
   * One pass: what the queue lost, then due triggers and due attempts, then
   * the periodic sweeps. The tick's duration (the metric) covers the firing
   * work, which decides how soon the last trigger of a second is claimed;
   * the sweeps that follow it every few seconds are timed apart.
   */
  async tick(): Promise<void> {
    if (!this.deps.lease.held()) return;
    // how late the timer fired: a process starved of CPU, or a long GC
    const lateMs = Math.max(0, Date.now() - this.timerDue);
    const stopTimer = this.deps.metrics.tickSeconds.startTimer();
    const steps = new StepTimer();
    let timing = true;
    const { first: firstBatch, largest } = batchLimits(this.deps.env.SCHEDULER_BATCH_SIZE);
    this.current = { phase: "firing", steps };
    this.tickSteps = steps;
    let watched = 0;
    const watch = setInterval(() => {
      watched++;
      // Timers count from the event loop's clock, read when its round began,
      // so they may fire a fraction of a millisecond before the tick's own
      // timer has run the full interval: then the line waits for it.
      const short = watched * STILL_RUNNING_MS - steps.elapsed();
      if (short <= 0) this.stillRunning(steps);
      else setTimeout(() => this.tickSteps === steps && this.stillRunning(steps), Math.ceil(short) + 1);
    }, STILL_RUNNING_MS);
    try {
      // The two share the loop's connection: never at once.
      if (this.planning !== null) {
        await this.planning;
        steps.lap("replanWaitMs");
      }
      await this.deps.recovery.run(new Date());
      steps.lap("recoveryMs");
      // A full batch means more are due: go on at once with a larger one
      // instead of waiting for the next tick.
      const full = new Set<string>();
      const enqueueing: Array<Promise<void>> = [];
      // After the first round, held attempts are looked at again only while
      // the last look released some, and due attempts only while promoting
      // planned some or the last look was full: with nothing tagged due,
      // a round is one transaction instead of three.
      let released = 0;
      let dispatched = 0;
      let previous = 0; // the last round's batch; 0 before the first
      for (let batch = firstBatch; ; previous = batch, batch = Math.min(batch * 2, largest)) {
        const now = new Date();
        const first = previous === 0;
        steps.lap();
        const { promoted, admissible, enqueued } = await promoteBatch(this.deps, now, batch);
        const promoteMs = steps.lap("promoteMs");
        enqueueing.push(enqueued);
        // Held attempts first: they are older than anything promoted now.
        released = first || released > 0 ? await dispatchHeld(this.deps, now, full, batch) : 0;
        const heldMs = steps.lap("heldMs");
        dispatched = first || admissible > 0 || dispatched >= previous ? await dispatchBatch(this.deps, now, full, batch) : 0;
        steps.rounds.push({ batch, promoted, released, dispatched, promoteMs, heldMs, dispatchMs: steps.lap("dispatchMs") });
        if (!this.active || (promoted < batch && dispatched < batch && released === 0)) break;
      }
      await Promise.all(enqueueing);
      steps.lap("enqueueWaitMs");
      this.deps.metrics.fullTags.set(full.size);
      this.wakeAt = (await nextPlannedAt(this.deps.db, new Date()))?.getTime() ?? null;
      steps.lap("nextPlannedMs");
      stopTimer();
      timing = false;
      steps.report(this.deps.log, "slow scheduler tick", this.deps.env.SCHEDULER_SLOW_TICK_MS, { lateMs, fullTags: full.size });
      await this.sweeps(new Date());
      this.outage.recovered();
      this.redisOutage.recovered();
    } catch (err) {
      this.failed(err);
    } finally {
      clearInterval(watch);
      this.current = null;
      this.tickSteps = null;
      if (timing) stopTimer();
    }
  }

  /** Seconds the running tick has taken so far, 0 between ticks (ttr_scheduler_tick_running_seconds). */
  runningSeconds(): number {
    return this.tickSteps === null ? 0 : this.tickSteps.elapsed() / 1000;
  }

  /**
   * The running tick's account so far: the steps it has finished, in the
   * phase it is in; the one it waits in is the next (docs/operations.md,
   * "Slow ticks").
   */
  private stillRunning(tick: StepTimer): void {
    const current = this.current;
    this.deps.log.warn("scheduler tick still running", {
      ms: tick.elapsed(),
      phase: current?.phase,
      steps: current?.steps.steps,
      rounds: tick.rounds.length,
    });
  }

  /** The periodic sweeps, each when its interval has passed, timed together. */
  private async sweeps(now: Date): Promise<void> {
    const sweep = now.getTime() - this.lastSweep >= SWEEP_EVERY_MS;
    const requeue = now.getTime() - this.lastRequeue >= REQUEUE_EVERY_MS;
    if (!sweep && !requeue) return;
    const stopTimer = this.deps.metrics.sweepSeconds.startTimer();
    const steps = new StepTimer();
    this.current = { phase: "sweeps", steps };
    try {
      if (sweep) {
        this.lastSweep = now.getTime();
        if (now.getTime() >= this.reapFrom) await reap(this.deps, now);
        steps.lap("reapMs");
        this.deps.metrics.instances.inc(await ensurePendingInstances(this.deps, now));
        steps.lap("instancesMs");
        await this.deps.admission.reconcile();
        steps.lap("reconcileMs");
        this.deps.metrics.held.set(await countHeld(this.deps.db, now));
        // replaced as a whole: a tag whose backlog is gone drops out
        const byTag = await countHeldByTag(this.deps.db, now, HELD_TAGS_SHOWN);
        this.deps.metrics.heldByTag.reset();
        for (const b of byTag) this.deps.metrics.heldByTag.set({ project: b.projectId, tag: b.tag }, b.held);
        steps.lap("heldCountsMs");
      }
      if (requeue) {
        this.lastRequeue = now.getTime();
        const before = new Date(now.getTime() - STALE_AFTER_MS);
        await requeueLost(this.deps, before, before);
        steps.lap("requeueMs");
      }
    } finally {
      stopTimer();
    }
    // The next tick waits for the sweeps: slow ones make it late too.
    steps.report(this.deps.log, "slow scheduler sweeps", this.deps.env.SCHEDULER_SLOW_TICK_MS);
  }

  /**
   * A tick that failed: whatever it had enqueued may be lost, so the queue
   * is checked at the next one. A lost lease is the leadership's to report;
   * a database that is down, or a Redis that refuses the work, is logged
   * once, when it goes and when it is back.
   */
  private failed(err: unknown): void {
    // Also an error of a replica that was frozen past its lease: the server
    // ended the transaction it had left open.
    if (err instanceof LeaseLost || !this.deps.lease.held()) return;
    this.deps.recovery.request("a tick failed");
    if (isDatabaseUnavailable(err)) {
      this.outage.failed(err);
      this.reapFrom = Date.now() + REAP_SETTLE_MS;
    }
    else if (isRedisUnavailable(err)) this.redisOutage.failed(err);
    else this.deps.log.error("scheduler tick failed", { error: (err as Error).stack ?? String(err) });
  }
}
