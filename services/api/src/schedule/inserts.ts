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
// sent. A batch is settled as a whole, with one statement per look.
import { setTimeout as sleep } from "node:timers/promises";
import { existingTriggerIds, forgetTriggers, insertOneShots, isDatabaseUnavailable, isUniqueViolation, mayHaveCommitted, type NewOneShot, type SqlRunner } from "@ttr/db";
import { Batcher, type Logger, orAfter } from "@ttr/platform";
// Time-ordered ids (UUIDv7): new rows land at the end of each index.
import { newId } from "../ids.js";
import { STATEMENT_LIMIT_MS } from "../storage-bounds.js";

/** How long after the request a call whose write may have committed goes on settling it: its 503 is due within 5 s. */
export const SETTLE_MS = 4000;
/** How often PostgreSQL is asked again while it is away. */
const RETRY_EVERY_MS = 200;
/** How long the row of a call answered 503 is looked for afterwards, to be removed. */
const FORGET_FOR_MS = 10 * 60_000;
/** After the server's own limit has passed, the rows are looked for this much longer before they are known gone. */
const RECHECK_MS = 500;

/** A row to write, when its call's answer is due (ms), and what to do once it is known never to be sent after a 503. */
interface Pending {
  row: NewOneShot;
  deadline: number;
  forgotten?: () => Promise<void>;
}

export class OneShotInserts {
  private readonly batcher: Batcher<Pending, void>;

  constructor(
    private readonly db: SqlRunner,
    private readonly log: Logger,
  ) {
    // A batch that may have committed is settled here, not written again one
    // row at a time, which could fail on a row that is stored after all.
    this.batcher = new Batcher(
      async (items: Pending[]) => {
        await this.write(items);
        return items.map(() => undefined);
      },
      { parallel: 2, maxBatch: 200, retryAlone: (err) => !mayHaveCommitted(err) },
    );
  }

  /**
   * Writes the trigger and answers its new id; `requestedAt` (ms) bounds
   * how long an outage is waited out. When the call answers 503 although
   * its write may have committed, `forgotten` is run once the row is known
   * not to be stored (never committed, or removed before it was sent).
   */
  async insert(row: Omit<NewOneShot, "id">, requestedAt: number, forgotten?: () => Promise<void>): Promise<string> {
    const id = newId();
    await this.batcher.call({ row: { ...row, id }, deadline: requestedAt + SETTLE_MS, forgotten });
    return id;
  }

  private async write(items: Pending[]): Promise<void> {
    const rows = items.map((i) => i.row);
    try {
      await insertOneShots(this.db, rows);
    } catch (err) {
      if (!mayHaveCommitted(err)) throw err;
      if (!(await this.settle(rows, Math.min(...items.map((i) => i.deadline))))) {
        void this.forget(items);
        throw err;
      }
    }
  }

  /** Whether the rows are stored (they were, or are now written), asking until `deadline`; false if PostgreSQL did not answer by then. */
  private async settle(rows: NewOneShot[], deadline: number): Promise<boolean> {
    while (Date.now() + RETRY_EVERY_MS < deadline) {
      await sleep(RETRY_EVERY_MS);
      try {
        // A look has what is left until the answer is due, not the pool's
        // 3 s: a server that stopped answering while the first write waited
        // on a lock would otherwise push the 503 past 5 s. A read given up
        // on changes nothing.
        const stored = await orAfter(existingTriggerIds(this.db, rows.map((r) => r.id)), Math.max(0, deadline - Date.now()), () => null);
        if (stored === null) return false;
        const missing = rows.filter((r) => !stored.has(r.id));
        // written again within what is left too; one given up on is found by forget()
        if (missing.length > 0) {
          const written = await orAfter(insertOneShots(this.db, missing).then(() => true), Math.max(0, deadline - Date.now()), () => false);
          if (!written) return false;
        }
        for (const r of rows) this.log.info("a write cut off by a PostgreSQL outage was settled", { triggerId: r.id });
        return true;
      } catch (err) {
        // a unique violation: the first write, still running when it was
        // looked for, committed since; the next look finds its rows
        if (!isUniqueViolation(err) && !isDatabaseUnavailable(err)) throw err;
      }
    }
    return false;
  }

  /**
   * After a 503: removes the rows once PostgreSQL answers, if the cut-off
   * write had committed. The write may also still be under way in the
   * server (waiting on a lock, or on a server that was frozen) and commit
   * later; the server ends it STATEMENT_LIMIT_MS after it began, so the
   * rows are looked for until a look made after that finds none left to
   * remove (looking once more a moment later, for a write the server was
   * only just ending). A row that is not stored then (removed, or never
   * committed) runs its `forgotten`: its call's quota unit is given back.
   */
  private async forget(items: Pending[]): Promise<void> {
    const ids = items.map((i) => i.row.id);
    const removed = new Set<string>();
    // every write of these rows began before now
    const serverGivesUpAt = Date.now() + STATEMENT_LIMIT_MS;
    let quietSince: number | null = null;
    for (const until = Date.now() + FORGET_FOR_MS; Date.now() < until; await sleep(RETRY_EVERY_MS)) {
      try {
        for (const id of await forgetTriggers(this.db, ids.filter((id) => !removed.has(id)))) {
          removed.add(id);
          this.log.warn("removed a trigger whose /schedule call had answered 503", { triggerId: id });
        }
        if (Date.now() < serverGivesUpAt) continue;
        quietSince ??= Date.now();
        if (Date.now() - quietSince < RECHECK_MS) continue;
        const left = ids.length > removed.size ? await existingTriggerIds(this.db, ids) : new Set<string>();
        for (const id of left) if (!removed.has(id)) this.log.warn("a trigger whose /schedule call had answered 503 was already being sent", { triggerId: id });
        for (const item of items) if (removed.has(item.row.id) || !left.has(item.row.id)) await item.forgotten?.();
        return;
      } catch (err) {
        if (!isDatabaseUnavailable(err)) {
          for (const id of ids) this.log.error("cannot remove a trigger whose /schedule call had answered 503", { triggerId: id, error: (err as Error).message });
          return;
        }
      }
    }
  }
}
