// Quota units for /schedule calls (docs/quota.md). Every call needs one unit
// from its project's row of the month, and that row's lock serialises the
// calls: one commit (and its WAL flush) each. Calls of a project that arrive
// while an earlier unit is being taken are grouped and take their units with
// one statement; each still gets its own exact remaining count.
import { consumeQuota, isDatabaseUnavailable, refundQuota, type SqlRunner } from "@ttr/db";
import { Batcher, KeyedBatchers } from "@ttr/platform";

export class QuotaUnits {
  private readonly batchers: KeyedBatchers<null, number | null>;

  constructor(private readonly db: SqlRunner) {
    this.batchers = new KeyedBatchers((key) => {
      const [projectId = "", month = ""] = key.split("|");
      // PostgreSQL unreachable or silent: the group and the calls waiting
      // behind it answer 503 now, rather than each trying in turn.
      return new Batcher((units) => consumeQuota(db, projectId, month, units.length), { maxBatch: 500, parallel: 1, failWaiting: isDatabaseUnavailable });
    });
  }

  /** The units left after this call's, or null when the quota is used up. */
  take(projectId: string, month: string): Promise<number | null> {
    return this.batchers.call(`${projectId}|${month}`, null);
  }

  /**
   * Gives a taken unit back, for a call that then stored nothing (its write
   * never reached PostgreSQL). Its remaining count was never answered, so
   * no answer is contradicted; the next call may see it.
   */
  giveBack(projectId: string, month: string): Promise<void> {
    return refundQuota(this.db, projectId, month);
  }
}
