// New one-shots from /schedule calls without key or ID (the common call).
// Each needs only an INSERT, and each INSERT alone is a commit with its own
// WAL flush; calls that arrive while earlier inserts are in flight are
// written together with one statement. A call returns once its row is
// committed; a batch that fails is retried row by row (Batcher), so one bad
// row fails only its own call.
//
// When PostgreSQL goes away after an INSERT was sent (killed, restarted, the
// connection cut), the commit may have happened with only its answer lost.
// A 503 must mean that nothing was stored (RELIABILITY.md, "Stores down:
// answers and logs"), so such a call does not answer at once: it looks
// for its row until shortly before the answer is due, and writes the row
// again if it is not there (the id is the call's own, so the row is never
// stored twice). Only when PostgreSQL stays away that long does the call
// answer 503; its row, if it turns up later, is then removed before it is
// sent.
import { setTimeout as sleep } from "node:timers/promises";
import { existingTriggerIds, forgetTrigger, insertOneShots, isDatabaseUnavailable, isUniqueViolation, mayHaveCommitted, type NewOneShot, type SqlRunner } from "@ttr/db";
import { Batcher, type Logger } from "@ttr/platform";
// Time-ordered ids (UUIDv7): new rows land at the end of each index.
import { newId } from "../ids.js";

/** How long after the request a call whose write may have committed goes on settling it: its 503 is due within 5 s. */
export const SETTLE_MS = 4000;
/** How often PostgreSQL is asked again while it is away. */
const RETRY_EVERY_MS = 200;
/** How long the row of a call answered 503 is looked for afterwards, to be removed. */
const FORGET_FOR_MS = 10 * 60_000;

export class OneShotInserts {
  private readonly batcher: Batcher<NewOneShot, void>;

  constructor(
    private readonly db: SqlRunner,
    private readonly log: Logger,
  ) {
    const write = async (rows: NewOneShot[]) => {
      await insertOneShots(db, rows);
      return rows.map(() => undefined);
    };
    // Rows of a batch that may have committed are settled by each call
    // (below), not written again one at a time, which could fail on a row
    // that is stored after all.
    this.batcher = new Batcher(write, { parallel: 2, maxBatch: 200, retryAlone: (err) => !mayHaveCommitted(err) });
  }

  /** Writes the trigger and answers its new id; `requestedAt` (ms) bounds how long an outage is waited out. */
  async insert(row: Omit<NewOneShot, "id">, requestedAt: number): Promise<string> {
    const one = { ...row, id: newId() };
    try {
      await this.batcher.call(one);
    } catch (err) {
      if (!mayHaveCommitted(err)) throw err;
      if (!(await this.settle(one, requestedAt + SETTLE_MS))) {
        void this.forget(one.id);
        throw err;
      }
    }
    return one.id;
  }

  /** Whether the row is stored (it was, or is now written), asking until `deadline`; false if PostgreSQL did not answer by then. */
  private async settle(row: NewOneShot, deadline: number): Promise<boolean> {
    while (Date.now() + RETRY_EVERY_MS < deadline) {
      await sleep(RETRY_EVERY_MS);
      try {
        if ((await existingTriggerIds(this.db, [row.id])).size === 0) await insertOneShots(this.db, [row]);
        this.log.info("a write cut off by a PostgreSQL outage was settled", { triggerId: row.id });
        return true;
      } catch (err) {
        // the first write, still running when it was looked for, committed since
        if (isUniqueViolation(err)) return true;
        if (!isDatabaseUnavailable(err)) throw err;
      }
    }
    return false;
  }

  /** After a 503: removes the row once PostgreSQL answers, if the cut-off write had committed. */
  private async forget(id: string): Promise<void> {
    for (const until = Date.now() + FORGET_FOR_MS; Date.now() < until; await sleep(RETRY_EVERY_MS)) {
      try {
        if (await forgetTrigger(this.db, id)) this.log.warn("removed a trigger whose /schedule call had answered 503", { triggerId: id });
        else if ((await existingTriggerIds(this.db, [id])).size > 0) this.log.warn("a trigger whose /schedule call had answered 503 was already being sent", { triggerId: id });
        return;
      } catch (err) {
        if (!isDatabaseUnavailable(err)) {
          this.log.error("cannot remove a trigger whose /schedule call had answered 503", { triggerId: id, error: (err as Error).message });
          return;
        }
      }
    }
  }
}
