// Detaching old days (day-tables.ts) against a real PostgreSQL: a day's
// three tables go together at a quiet moment, waiting only briefly for the
// tables, and one table at a time once a long read keeps them busy.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, type TestDatabase } from "../../../test/support/db.js";
import { clientRunner, detachDays, ensurePartitions, waitForQuiet, withPgClient } from "../src/index.js";

const DAY = 86_400_000;
let tdb: TestDatabase;
let client: pg.Client;

const day = (offset: number) => new Date(Date.now() + offset * DAY).toISOString().slice(0, 10);

/** A day's three tables, as detachDays takes them. */
const tablesOf = (d: string) => {
  const suffix = d.replaceAll("-", "");
  return { executionsTable: `executions_p${suffix}`, tagsTable: `trigger_tags_p${suffix}`, triggersTable: `triggers_p${suffix}` };
};

beforeAll(async () => {
  tdb = await freshDatabase();
  client = new pg.Client({ connectionString: tdb.url });
  await client.connect();
});

afterAll(async () => {
  await client?.end();
  await tdb?.drop();
});

describe("detaching old days", () => {
  /** A session of its own (withPgClient), closed afterwards. */
  const withSession = (fn: (session: pg.Client) => Promise<void>) => withPgClient(tdb.url, fn, "ttr-test");
  const attached = async (table: string) => (await client.query("SELECT 1 FROM pg_inherits WHERE inhrelid = to_regclass($1)", [table])).rowCount === 1;

  it("detaches every day's three tables together when nothing holds them", async () => {
    const days = [day(-50), day(-51)];
    for (const d of days) await ensurePartitions(clientRunner(client), new Date(), d);
    const said: string[] = [];
    await detachDays(clientRunner(client), days.map(tablesOf), { log: (msg) => said.push(msg) });
    for (const d of days) for (const t of Object.values(tablesOf(d))) expect(await attached(t)).toBe(false);
    expect(said).toEqual(["old days detached"]);
    for (const d of days) await client.query(`DROP TABLE ${Object.values(tablesOf(d)).join(", ")}`);
  });

  it("detaches at a quiet moment: not while another session runs a statement, unless it never ends", async () => {
    const d = day(-53);
    await ensurePartitions(clientRunner(client), new Date(), d);
    await withSession(async (busy) => {
      const sleeping = busy.query("SELECT pg_sleep(0.6)").then(() => Date.now());
      await new Promise((r) => setTimeout(r, 100));
      await detachDays(clientRunner(client), [tablesOf(d)]);
      const detachedAt = Date.now();
      // the statement ended first: the detach waited for it
      expect(detachedAt).toBeGreaterThanOrEqual(await sleeping);
      // one that outlasts the wait is not waited for longer
      const long = busy.query("SELECT pg_sleep(2)");
      await new Promise((r) => setTimeout(r, 100));
      const started = Date.now();
      await waitForQuiet(clientRunner(client), 500);
      expect(Date.now() - started).toBeLessThan(1500);
      await long;
    });
    for (const t of Object.values(tablesOf(d))) expect(await attached(t)).toBe(false);
    await client.query(`DROP TABLE ${Object.values(tablesOf(d)).join(", ")}`);
  });

  it("waits for the tables only briefly: while a long read holds them, detaches one table at a time once it ends", async () => {
    const d = day(-52);
    await ensurePartitions(clientRunner(client), new Date(), d);
    await withSession(async (reader) => {
      await reader.query("BEGIN");
      await reader.query("SELECT count(*) FROM triggers");
      let fellBack!: () => void;
      const fallback = new Promise<void>((resolve) => {
        fellBack = resolve;
      });
      await withSession(async (runner) => {
        const started = Date.now();
        // (quiet: false: the open transaction is idle, not running; waiting for quiet is tested above)
        const detaching = detachDays(clientRunner(runner), [tablesOf(d)], { tries: 2, lockMs: 20, quiet: false, log: (msg) => msg.includes("one at a time") && fellBack() });
        await fallback;
        // two tries of 20 ms, and pauses of 20 and 40 ms: the read was never waited on for long
        expect(Date.now() - started).toBeLessThan(2000);
        expect(await attached(tablesOf(d).triggersTable)).toBe(true);
        await reader.query("COMMIT");
        await detaching;
      });
    });
    for (const t of Object.values(tablesOf(d))) expect(await attached(t)).toBe(false);
    await client.query(`DROP TABLE ${Object.values(tablesOf(d)).join(", ")}`);
  });
});
