// An attempt's start or finish that PostgreSQL rolls back as a deadlock's
// victim is run again, not given up (which would leave a sent attempt's
// outcome to the reaper): a real deadlock on a real server, between the
// executor's retry loop and another transaction.
import { createPgRunner, isConflict, isDatabaseUnavailable, type PgRunner } from "@ttr/db";
import { createLogger, OutageLog } from "@ttr/platform";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { freshDatabase, type TestDatabase } from "../../../test/support/db.js";
import { whileDatabaseDown } from "../src/worker.js";

let tdb: TestDatabase;
let runner: PgRunner;
let other: pg.Client;
beforeAll(async () => {
  tdb = await freshDatabase();
  runner = createPgRunner(tdb.url, { max: 1, applicationName: "ttr-test-conflict" });
  other = new pg.Client({ connectionString: tdb.url });
  await other.connect();
  await other.query("CREATE TABLE pair (id int PRIMARY KEY, v int NOT NULL); INSERT INTO pair VALUES (1, 0), (2, 0)");
});
afterAll(async () => {
  await other?.end();
  await runner?.end();
  await tdb?.drop();
});

const outage = new OutageLog(createLogger("test", "error"), "postgres");

it("a statement chosen as a deadlock's victim is run again, and then succeeds", async () => {
  const errors: unknown[] = [];
  let calls = 0;
  let holdsRow2!: () => void;
  const heldRow2 = new Promise<void>((r) => (holdsRow2 = r));
  await other.query("BEGIN");
  await other.query("UPDATE pair SET v = v + 1 WHERE id = 1");
  // the retried side: row 2, then row 1 (held by `other`), so that it waits first and is the victim
  const retried = whileDatabaseDown(outage, async () => {
    calls++;
    try {
      await runner.$transaction(async (tx) => {
        await tx.$executeRawUnsafe("UPDATE pair SET v = v + 10 WHERE id = 2");
        holdsRow2();
        await tx.$executeRawUnsafe("UPDATE pair SET v = v + 10 WHERE id = 1");
      });
    } catch (err) {
      errors.push(err);
      throw err;
    }
  });
  await heldRow2;
  await new Promise((r) => setTimeout(r, 200));
  await other.query("UPDATE pair SET v = v + 1 WHERE id = 2"); // closes the cycle; goes on once the victim rolls back
  await other.query("COMMIT");
  await retried;

  expect(calls).toBe(2);
  expect(errors).toHaveLength(1);
  expect((errors[0] as { code?: string }).code).toBe("40P01");
  expect(isConflict(errors[0])).toBe(true);
  expect(isDatabaseUnavailable(errors[0])).toBe(false);
  const rows = await other.query<{ id: number; v: number }>("SELECT id, v FROM pair ORDER BY id");
  expect(rows.rows).toEqual([
    { id: 1, v: 11 },
    { id: 2, v: 11 },
  ]);
});

it("a conflict that keeps coming is given up after a few tries, and other errors at once", async () => {
  const deadlock = Object.assign(new Error("deadlock detected"), { code: "40P01" });
  let calls = 0;
  await expect(
    whileDatabaseDown(outage, async () => {
      calls++;
      throw deadlock;
    }),
  ).rejects.toBe(deadlock);
  expect(calls).toBe(5);

  calls = 0;
  const wrong = Object.assign(new Error('column "nope" does not exist'), { code: "42703" });
  await expect(
    whileDatabaseDown(outage, async () => {
      calls++;
      throw wrong;
    }),
  ).rejects.toBe(wrong);
  expect(calls).toBe(1);
});
