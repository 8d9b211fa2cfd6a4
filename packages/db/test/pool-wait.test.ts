// A transaction waits up to 4 s for its pool's connection, not Prisma's own
// 2 s: a burst of /schedule edits on a busy machine failed with 500 while
// the pool was merely busy. A transaction that finds none in time is a
// storage outage for its request (503), and wrote nothing.
import { afterAll, beforeAll, expect, it } from "vitest";
import { freshDatabase, type TestDatabase } from "../../../test/support/db.js";
import { createDb, type Db, isDatabaseUnavailable, mayHaveCommitted } from "../src/index.js";

let tdb: TestDatabase;
let db: Db;
beforeAll(async () => {
  tdb = await freshDatabase();
  db = createDb(tdb.url, { max: 1, applicationName: "ttr-test-pool-wait" });
});
afterAll(async () => {
  await db?.$disconnect();
  await tdb?.drop();
});

/** Holds the pool's only connection for `ms` inside a transaction. */
const hold = (ms: number) => db.$transaction((tx) => tx.$queryRawUnsafe(`SELECT 1 AS one FROM pg_sleep(${ms / 1000})`), { timeout: ms + 5000 });

it("a transaction waits more than 2 s for the pool's only connection, and then runs", async () => {
  const holding = hold(2600);
  await new Promise((r) => setTimeout(r, 100));
  const started = Date.now();
  const rows = await db.$transaction((tx) => tx.$queryRawUnsafe<Array<{ one: number }>>("SELECT 1 AS one"));
  expect(rows).toEqual([{ one: 1 }]);
  expect(Date.now() - started).toBeGreaterThan(2000);
  await holding;
});

it("a transaction that finds no connection in time is 'unavailable' and did not commit", async () => {
  const holding = hold(1000);
  await new Promise((r) => setTimeout(r, 100));
  const err = await db.$transaction((tx) => tx.$queryRawUnsafe("SELECT 1"), { maxWait: 200 }).catch((e: unknown) => e);
  expect(String(err)).toContain("Unable to start a transaction in the given time");
  expect(isDatabaseUnavailable(err)).toBe(true);
  expect(mayHaveCommitted(err)).toBe(false);
  await holding;
});
