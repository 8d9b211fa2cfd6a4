// listenForNotices: a connection of its own that hears a channel's notices,
// and hears them again after the server ended it (it connects again, and
// says so, since a notice may have been sent meanwhile).
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { freshDatabase, type TestDatabase } from "../../../test/support/db.js";
import { eventually } from "../../../test/support/rows.js";
import { listenForNotices, type NoticeReason } from "../src/index.js";

let tdb: TestDatabase;
let client: pg.Client;
beforeAll(async () => {
  tdb = await freshDatabase();
  client = new pg.Client({ connectionString: tdb.url });
  await client.connect();
});
afterAll(async () => {
  await client?.end();
  await tdb?.drop();
});

/** The listener's backends, by its application name. */
const listeners = async () =>
  (await client.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'ttr-test-notices'")).rows.map((r) => r.pid);

it("hears the channel's notices, and again once its connection was ended", async () => {
  const calls: NoticeReason[] = [];
  let heard = 0;
  const listener = listenForNotices(
    tdb.url,
    "ttr_test_channel",
    (reason) => {
      calls.push(reason);
      if (reason === "notice") heard++;
    },
    "ttr-test-notices",
    200,
  );
  try {
    const [first] = await eventually(async () => ((await listeners()).length === 1 ? listeners() : undefined), 5000, "the listener's connection");
    // LISTEN follows the connect: notify until heard
    await eventually(async () => {
      await client.query("NOTIFY ttr_test_channel");
      return heard > 0 ? true : undefined;
    }, 5000, "the first notice");
    await client.query("SELECT pg_terminate_backend($1)", [first]);
    const [second] = await eventually(async () => {
      const pids = await listeners();
      return pids.length === 1 && pids[0] !== first ? pids : undefined;
    }, 5000, "the listener's new connection");
    expect(second).not.toBe(first);
    // listening again, it reports that one may have been missed: once
    await eventually(async () => (calls.includes("reconnected") ? true : undefined), 5000, "the reconnected call");
    expect(calls.filter((r) => r === "reconnected")).toEqual(["reconnected"]);
    // the first connection did not report one
    expect(calls.indexOf("reconnected")).toBeGreaterThan(calls.indexOf("notice"));
    const before = heard;
    await eventually(async () => {
      await client.query("NOTIFY ttr_test_channel");
      return heard > before ? true : undefined;
    }, 5000, "a notice after the reconnect");
  } finally {
    await listener.close();
  }
  // closed: its connection goes, and it does not come back
  await eventually(async () => ((await listeners()).length === 0 ? true : undefined), 5000, "the listener's end");
  await new Promise((r) => setTimeout(r, 400));
  expect(await listeners()).toEqual([]);
});
