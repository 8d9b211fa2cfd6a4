// New one-shots from /schedule calls without key or ID (the common call).
// Each needs only an INSERT, and each INSERT alone is a commit with its own
// WAL flush; calls that arrive while earlier inserts are in flight are
// written together with one statement. A call returns once its row is
// committed; a batch that fails is retried row by row (Batcher), so one bad
// row fails only its own call.
import { insertOneShots, type NewOneShot, type SqlRunner } from "@ttr/db";
import { Batcher } from "@ttr/platform";
// Time-ordered ids (UUIDv7): new rows land at the end of each index.
import { newId } from "../ids.js";

export class OneShotInserts {
  private readonly batcher: Batcher<NewOneShot, void>;

  constructor(db: SqlRunner) {
    const write = async (rows: NewOneShot[]) => {
      await insertOneShots(db, rows);
      return rows.map(() => undefined);
    };
    this.batcher = new Batcher(write, { parallel: 2, maxBatch: 200 });
  }

  /** Writes the trigger and answers its new id. */
  async insert(row: Omit<NewOneShot, "id">): Promise<string> {
    const id = newId();
    await this.batcher.call({ ...row, id });
    return id;
  }
}
