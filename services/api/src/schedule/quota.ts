// Quota units for /schedule calls (CONTRACT §4). Every call needs one unit
// from its project's row of the month, and that row's lock serialises the
// calls: one commit (and its WAL flush) each. Calls of a project that arrive
// while an earlier unit is being taken are grouped and take their units with
// one statement; each still gets its own exact remaining count.
import { consumeQuota, type SqlRunner } from "@ttr/db";
import { Batcher } from "@ttr/platform";

export class QuotaUnits {
  private readonly batchers = new Map<string, { batcher: Batcher<null, number | null>; pending: number }>();

  constructor(private readonly db: SqlRunner) {}

  /** The units left after this call's, or null when the quota is used up. */
  async take(projectId: string, month: string): Promise<number | null> {
    const key = `${projectId}:${month}`;
    let entry = this.batchers.get(key);
    if (entry === undefined) {
      const batcher = new Batcher<null, number | null>((units) => consumeQuota(this.db, projectId, month, units.length), { maxBatch: 500, parallel: 1 });
      entry = { batcher, pending: 0 };
      this.batchers.set(key, entry);
    }
    entry.pending++;
    try {
      return await entry.batcher.call(null);
    } finally {
      // Forget idle projects so the map does not grow with every project and month.
      if (--entry.pending === 0) this.batchers.delete(key);
    }
  }
}
