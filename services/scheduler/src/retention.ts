// The retention loop of the active scheduler (docs/retention.md): once soon
// after it takes the lead, then every hour, it makes the coming days'
// partitions and removes history older than TTR_RETENTION_DAYS. It runs
// beside the firing loop, never inside a tick, and each pass moves rows in
// small paced statements, so firing does not wait for it.
import { isDatabaseUnavailable, prune } from "@ttr/db";
import type { Logger } from "@ttr/platform";
import type { Metrics } from "./metrics.js";

const FIRST_PASS_DELAY_MS = 10_000;
const EVERY_MS = 3_600_000;
/** after a pass that failed: sooner than the hour */
const RETRY_MS = 60_000;

export class RetentionLoop {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  /** passes in a row that left days for later (a long transaction: a dump, a report) */
  private deferredInARow = 0;

  constructor(
    private readonly databaseUrl: string,
    private readonly days: number,
    private readonly metrics: Metrics,
    private readonly log: Logger,
    /** how long a pass waits for transactions older than its cutoff (tests shorten it) */
    private readonly settleTimeoutMs = 30_000,
  ) {}

  start(): void {
    if (this.timer) return;
    this.schedule(FIRST_PASS_DELAY_MS);
  }

  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  private schedule(ms: number): void {
    this.timer = setTimeout(() => {
      // pass() never throws: it logs what failed and says whether it passed
      this.running = this.pass().then((ok) => {
        this.running = null;
        if (this.timer) this.schedule(ok ? EVERY_MS : this.retryAfterMs());
      });
    }, ms);
  }

  /**
   * A minute after a failure; after passes in a row that had to leave days
   * for later, twice as long each time up to the hour, so a transaction
   * that lasts hours is not waited for (30 s each) every minute.
   */
  retryAfterMs(): number {
    return this.deferredInARow === 0 ? RETRY_MS : Math.min(EVERY_MS, RETRY_MS * 2 ** (this.deferredInARow - 1));
  }

  /**
   * One pass; a failure is logged and the pass tried again a minute later.
   * Returns whether it succeeded: removed every day past the cutoff. One that
   * had to leave days for later (a transaction older than the pass still
   * open, or rows of the day locked) is tried again a minute later too, and
   * does not count as a success, so a history that stops shrinking shows on
   * ttr_retention_last_success_timestamp_seconds.
   */
  async pass(): Promise<boolean> {
    const stopTimer = this.metrics.retentionSeconds.startTimer();
    this.metrics.retentionLastRun.setToCurrentTime();
    try {
      const r = await prune(this.databaseUrl, {
        olderThanDays: this.days,
        pauseMs: 20,
        settleTimeoutMs: this.settleTimeoutMs,
        log: (msg, meta) => this.log.info(msg, meta),
      });
      if (r.locked) {
        // Not a success: ttr_retention_last_success_timestamp_seconds stays where it was.
        this.deferredInARow = 0;
        this.log.warn("retention pass skipped: another pass holds the retention lock (a ttr prune, or another scheduler); tried again in a minute");
        return false;
      }
      this.metrics.retentionRemoved.inc({ table: "triggers" }, r.triggers);
      this.metrics.retentionRemoved.inc({ table: "executions" }, r.executions);
      this.metrics.retentionPartitions.inc(r.partitions);
      this.metrics.retentionMoved.inc(r.moved);
      this.metrics.retentionDeferred.set(r.deferred);
      const { locked: _, ...counts } = r;
      if (r.deferred > 0) {
        this.deferredInARow++;
        const retryMinutes = this.retryAfterMs() / 60_000;
        this.log.warn("retention pass left days past the cutoff for later", { retentionDays: this.days, ...counts, retryMinutes });
        return false;
      }
      this.deferredInARow = 0;
      this.metrics.retentionLastSuccess.setToCurrentTime();
      if (r.partitions || r.moved) this.log.info("retention pass", { retentionDays: this.days, ...counts });
      return true;
    } catch (err) {
      // a failure is tried again in a minute, whatever passes came before it
      this.deferredInARow = 0;
      // PostgreSQL down is an outage (the tick logs it), not a retention bug.
      if (isDatabaseUnavailable(err)) this.log.warn("retention pass interrupted: postgres unavailable; tried again in a minute", { error: (err as Error).message });
      else this.log.error("retention pass failed; tried again in a minute", { error: (err as Error).message });
      return false;
    } finally {
      stopTimer();
    }
  }
}
