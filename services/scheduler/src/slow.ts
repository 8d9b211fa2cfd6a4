// A tick, or a round of sweeps, that takes more than SCHEDULER_SLOW_TICK_MS
// (half of SCHEDULER_TICK_MS by default) logs one warning with the time of each of its steps, so
// that a late second explains itself from the logs alone: which statement
// waited, how many rounds the backlog took, or whether the whole process was
// slow (the timer itself fired late). See docs/operations.md, "Slow ticks".
import { performance } from "node:perf_hooks";
import type { Logger } from "@ttr/platform";

/** Milliseconds, rounded to a tenth: enough to tell a statement from a stall. */
const ms = (value: number) => Math.round(value * 10) / 10;

/** One round of a tick: a claim, a look at held attempts, a dispatch. */
export interface Round {
  batch: number;
  promoted: number;
  released: number;
  dispatched: number;
  promoteMs: number;
  heldMs: number;
  dispatchMs: number;
}

/**
 * Times the steps of one tick or sweep round. Costs a clock read per step;
 * only a slow one writes anything.
 */
export class StepTimer {
  private readonly started = performance.now();
  private last = this.started;
  /** time spent in each named step, in ms */
  readonly steps: Record<string, number> = {};
  readonly rounds: Round[] = [];

  /** The time since the previous lap (or the start), added to `step` when named. */
  lap(step?: string): number {
    const now = performance.now();
    const spent = ms(now - this.last);
    this.last = now;
    if (step !== undefined) this.steps[step] = ms((this.steps[step] ?? 0) + spent);
    return spent;
  }

  elapsed(): number {
    return ms(performance.now() - this.started);
  }

  /** Logs `message` with every step's time when the whole took more than `slowMs`; returns whether it did. */
  report(log: Logger, message: string, slowMs: number, fields: Record<string, unknown> = {}): boolean {
    const total = this.elapsed();
    if (total <= slowMs) return false;
    log.warn(message, { ms: total, ...fields, steps: this.steps, ...(this.rounds.length > 0 ? { rounds: this.rounds } : {}) });
    return true;
  }
}
