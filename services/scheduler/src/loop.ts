// The active scheduler's loop. Ticks are aligned to the wall clock (every
// SCHEDULER_TICK_MS, a few ms after the boundary), so a trigger due at a
// second is claimed right after that second starts: never before it
// (SPEC §1 firing precision 2), and usually within milliseconds.
import { countHeld, nextPlannedAt } from "@ttr/db";
import type { Deps } from "./deps.js";
import { dispatchBatch, dispatchHeld, requeueLost } from "./dispatch.js";
import { promoteBatch } from "./promote.js";
import { reap } from "./reaper.js";
import { ensurePendingInstances } from "./recurring.js";

const SWEEP_EVERY_MS = 5000;
const REQUEUE_EVERY_MS = 30_000;
/** past the boundary, so rows stored at the boundary's second are due */
const ALIGN_SLACK_MS = 3;

export class SchedulerLoop {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private active = false;
  private lastSweep = 0;
  private lastRequeue = Date.now();
  /** a planned attempt due before the next aligned tick */
  private wakeAt: number | null = null;

  constructor(private readonly deps: Deps) {}

  start(): void {
    if (this.active) return;
    this.active = true;
    this.next();
  }

  /** Stops after the tick in progress, if any. */
  async stop(): Promise<void> {
    this.active = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  private next(): void {
    if (!this.active) return;
    const tick = this.deps.env.SCHEDULER_TICK_MS;
    const now = Date.now();
    let wait = (Math.floor(now / tick) + 1) * tick + ALIGN_SLACK_MS - now;
    if (this.wakeAt !== null) wait = Math.max(0, Math.min(wait, this.wakeAt + 1 - now));
    this.timer = setTimeout(() => {
      this.running = this.tick().finally(() => {
        this.running = null;
        this.next();
      });
    }, wait);
  }

  /** One pass: drain due triggers and due attempts, then the periodic sweeps. */
  async tick(): Promise<void> {
    const stopTimer = this.deps.metrics.tickSeconds.startTimer();
    const batch = this.deps.env.SCHEDULER_BATCH_SIZE;
    try {
      // A full batch means more are due: go on at once instead of waiting for the next tick.
      const full = new Set<string>();
      const enqueueing: Array<Promise<void>> = [];
      for (;;) {
        const now = new Date();
        const { promoted, enqueued } = await promoteBatch(this.deps, now);
        enqueueing.push(enqueued);
        // Held attempts first: they are older than anything promoted now.
        const released = await dispatchHeld(this.deps, now, full);
        const dispatched = await dispatchBatch(this.deps, now, full);
        if (!this.active || (promoted < batch && dispatched < batch && released === 0)) break;
      }
      await Promise.all(enqueueing);
      this.deps.metrics.fullTags.set(full.size);
      this.wakeAt = (await nextPlannedAt(this.deps.db, new Date()))?.getTime() ?? null;
      const now = new Date();
      if (now.getTime() - this.lastSweep >= SWEEP_EVERY_MS) {
        this.lastSweep = now.getTime();
        await reap(this.deps, now);
        await ensurePendingInstances(this.deps.db, now, this.deps.log);
        await this.deps.admission.reconcile();
        this.deps.metrics.held.set(await countHeld(this.deps.db, now));
      }
      if (now.getTime() - this.lastRequeue >= REQUEUE_EVERY_MS) {
        this.lastRequeue = now.getTime();
        await requeueLost(this.deps, now);
      }
    } catch (err) {
      this.deps.log.error("scheduler tick failed", { error: (err as Error).stack ?? String(err) });
    } finally {
      stopTimer();
    }
  }
}
