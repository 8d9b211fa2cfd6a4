// EXECUTOR_CONCURRENCY counts attempts in flight, while the queue hands out
// jobs of up to ATTEMPTS_PER_JOB attempts. AttemptSlots keeps the two
// apart: it tells the worker how many jobs to hold, so that it takes another
// only while some of its attempt slots are free (so an executor holds at
// most one job's worth beyond what it can send, and does not take work
// another one could start sooner), and it bounds the attempts sent at once,
// whatever the jobs carry.
import pLimit, { type LimitFunction } from "p-limit";

export class AttemptSlots {
  private jobs = 0;
  private attempts = 0;
  /** at most `limit` attempts at a time, the rest waiting their turn */
  private readonly run: LimitFunction;

  private closing = false;

  constructor(
    private readonly limit: number,
    private readonly perJob: number,
  ) {
    this.run = pLimit(limit);
  }

  /**
   * Runs `attempt` when a slot is free, unless the executor is shutting
   * down by then: an attempt still waiting for a slot is left unstarted
   * (still planned, so the scheduler sends it again, to another executor)
   * rather than begun inside the shutdown's grace period. The slot is held
   * while `attempt` runs (starting the attempt and sending it) and is free
   * as soon as it resolves: recording the outcome, which the caller starts
   * with what `attempt` answers, takes no slot. Answers that, or undefined
   * if the attempt was not started.
   */
  async send<T>(attempt: () => Promise<T>): Promise<T | undefined> {
    return this.run(async () => {
      try {
        return this.closing ? undefined : await attempt();
      } finally {
        this.attempts--;
        this.onChange?.();
      }
    });
  }

  /** Told whenever jobLimit may have changed: a job taken or done with, an attempt out of its slot. */
  onChange?: () => void;

  /** The executor is shutting down: attempts still waiting for a slot are not started. */
  close(): void {
    this.closing = true;
  }

  /** Whether close() was called. */
  closed(): boolean {
    return this.closing;
  }

  /** A job of `count` attempts was taken; each is counted until it leaves its slot (send). */
  took(count: number): void {
    this.jobs++;
    this.attempts += count;
    this.onChange?.();
  }

  /** A job is done with: each of its attempts has been through send() (their outcomes are recorded apart, holding no job). */
  released(): void {
    this.jobs--;
    this.onChange?.();
  }

  /** Whether the worker holds no job. */
  idle(): boolean {
    return this.jobs === 0;
  }

  /**
   * How many jobs the worker may hold now: those it holds, plus enough
   * full jobs to fill the attempt slots left (the last one may overfill
   * them: its extra attempts wait for a slot); at least one, and never more
   * than the limit (jobs of one attempt each). Rounding down instead would
   * leave up to a job's worth of slots empty: at a limit of 50, only 40
   * attempts in flight.
   */
  jobLimit(): number {
    const fill = Math.ceil(Math.max(0, this.limit - this.attempts) / this.perJob);
    return Math.max(1, Math.min(this.limit, this.jobs + fill));
  }
}
