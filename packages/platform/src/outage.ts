// A store that is down makes its client fail again and again (every
// reconnect, every retry). Operators need the change, not the repetition:
// one line when it goes down, one when it is back.
import type { Logger } from "./logger.js";

export class OutageLog {
  private down = false;

  constructor(
    private readonly log: Logger,
    private readonly store: string,
    private readonly meta: Record<string, unknown> = {},
  ) {}

  /** A failure: logged if the store was working until now. */
  failed(err: unknown): void {
    if (this.down) return;
    this.down = true;
    this.log.warn(`${this.store} unavailable`, { ...this.meta, error: err instanceof Error ? err.message : String(err) });
  }

  /**
   * A failure seen by something that will not see the recovery (a request
   * that failed): logged if the store was working until now, and then
   * `probe` is tried every `everyMs` until it answers, to log the recovery.
   */
  failedUntil(err: unknown, probe: () => Promise<unknown>, everyMs = 1000): void {
    if (this.down) return;
    this.failed(err);
    const timer = setInterval(() => {
      probe().then(
        () => {
          clearInterval(timer);
          this.recovered();
        },
        () => {},
      );
    }, everyMs);
    timer.unref();
  }

  /**
   * `check` (a readiness probe of the store) reporting here: a process with
   * no work meanwhile, which no request or job would tell, learns of an
   * outage and of its end from its probes.
   */
  watched<T>(check: () => Promise<T>): () => Promise<T> {
    return () =>
      check().then(
        (value) => {
          this.recovered();
          return value;
        },
        (err: unknown) => {
          this.failed(err);
          throw err;
        },
      );
  }

  /** It answers again: logged if it was down. */
  recovered(): void {
    if (!this.down) return;
    this.down = false;
    this.log.info(`${this.store} available again`, this.meta);
  }
}

/**
 * `promise`'s outcome if it comes within `ms`, else `late()`'s (a value,
 * or its throw): a store that keeps its connection open without answering
 * would otherwise keep the caller waiting for as long as that lasts.
 */
export async function orAfter<T>(promise: Promise<T>, ms: number, late: () => T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<T>((resolve, reject) => {
    timer = setTimeout(() => {
      try {
        resolve(late());
      } catch (err) {
        reject(err);
      }
    }, ms);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Waits for `promise` at most `ms` (a shutdown step waiting on a store that
 * is down would never end); its failure is not this caller's concern.
 */
export async function within(ms: number, promise: Promise<unknown>): Promise<void> {
  await orAfter(promise.then(noop, noop), ms, noop);
}

const noop = (): void => {};

/**
 * The same error arriving in a burst (say, one per job the queue lost when
 * Redis was flushed): the first is logged, repeats within `windowMs` are
 * only counted, and the count rides on the next line logged.
 */
export class RepeatLog {
  private lastAt = Number.NEGATIVE_INFINITY;
  private repeats = 0;

  constructor(
    private readonly log: Logger,
    private readonly message: string,
    private readonly windowMs = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  note(err: unknown): void {
    const at = this.now();
    if (at - this.lastAt < this.windowMs) {
      this.repeats++;
      return;
    }
    this.log.warn(this.message, { error: err instanceof Error ? err.message : String(err), repeatsBefore: this.repeats });
    this.lastAt = at;
    this.repeats = 0;
  }
}
