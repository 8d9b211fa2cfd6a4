// The storage watch's probe hears PostgreSQL's answer even when the event
// loop was busy past the probe's deadline (a 10 MiB declaration being parsed
// and planned): the answer arrived meanwhile and waits unread, and a busy
// loop is no outage. A server that says nothing is still silence.
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { freshDatabase, type TestDatabase } from "../../../test/support/db.js";
import { heardWithinProbeTime } from "../src/http/storage-watch.js";

let database: TestDatabase;
let pool: pg.Pool;

beforeAll(async () => {
  database = await freshDatabase();
  pool = new pg.Pool({ connectionString: database.url, max: 1 });
  await pool.query("SELECT 1");
});
afterAll(async () => {
  await pool?.end();
  await database?.drop();
});

function busyFor(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // the event loop does nothing else meanwhile
  }
}

it("an answer that came while the event loop was busy past the deadline is heard", async () => {
  const heard = heardWithinProbeTime(pool.query("SELECT 1"), 300);
  busyFor(800);
  expect(await heard).toBe(true);
});

it("a server that says nothing is silence, busy loop or not", async () => {
  const started = Date.now();
  const heard = heardWithinProbeTime(new Promise(() => {}), 300);
  busyFor(800);
  expect(await heard).toBe(false);
  expect(Date.now() - started).toBeLessThan(1500);
});
