// The api's dashboard reads keep their plans per connection, and a day
// partition added or detached makes each connection plan them again on its
// next call (135–153 ms for the trigger list over 72 days). At start, and
// on the notice of such a change (or when its listener lost its connection,
// and a notice may have been missed), the api plans them at once on the reads
// pool's idle connections, so that no user's read waits for it (docs/storage.md,
// "Kept plans and connections").
import { clientRunner, ensurePartitions } from "@ttr/db";
import { freePort } from "@ttr/platform";
import pg from "pg";
import { afterAll, expect, it } from "vitest";
import { freshDatabase, type TestDatabase } from "../support/db.js";
import { eventually } from "../support/rows.js";
import { killService, launchService, type Service, serviceEnv } from "../support/system.js";

let database: TestDatabase | undefined;
let api: Service | undefined;

afterAll(async () => {
  if (api) await killService(api, "SIGKILL");
  await database?.drop();
});

/** The process ids of the reads pool's connections. */
async function readsConnections(url: string): Promise<number[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'ttr-api-reads' ORDER BY pid");
    return rows.map((r) => r.pid);
  } finally {
    await client.end();
  }
}

it("plans the dashboard reads on the reads pool's idle connections at start, as soon as another process adds day partitions, and after its listener lost its connection", async () => {
  database = await freshDatabase();
  const url = database.url;
  // The template was migrated when the run began: if the UTC day has turned
  // since, the api's own upkeep at start would make the new last day, and
  // its notice plan the reads a second time. Made here first, it has none.
  const setup = new pg.Client({ connectionString: url });
  await setup.connect();
  await ensurePartitions(clientRunner(setup), new Date());
  await setup.end();
  const port = await freePort();
  api = await launchService("api", "services/api/dist/main.js", { ...serviceEnv(url), LOG_LEVEL: "info", PORT: String(port), HOST: "127.0.0.1" }, port);
  const service = api;
  const planned = (reason: string) =>
    service.output
      .join("")
      .split("\n")
      .filter((l) => l.includes('"planned the dashboard reads"'))
      .map((l) => JSON.parse(l) as { reason: string; connections: number; ms: number })
      .filter((e) => e.reason === reason);
  // the api opens one reads connection at start, and plans the reads there
  const before = await eventually(async () => {
    const pids = await readsConnections(url);
    return pids.length > 0 ? pids : undefined;
  }, 10_000, "the reads pool's first connection");
  const [atStart] = await eventually(async () => (planned("start").length > 0 ? planned("start") : undefined), 5000, "the planning at start");
  expect(atStart!.connections).toBe(before.length);
  expect(planned("partitions changed")).toEqual([]);

  // days 30 to 37 from now do not exist yet: this makes them
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    expect(await ensurePartitions(clientRunner(client), new Date(Date.now() + 30 * 86_400_000))).toBeGreaterThan(0);
  } finally {
    await client.end();
  }
  const [done] = await eventually(async () => (planned("partitions changed").length > 0 ? planned("partitions changed") : undefined), 5000, "the reads' planning");
  expect(done!.connections).toBe(before.length);
  // on the connections it had, none opened for it
  expect(await readsConnections(url)).toEqual(before);

  // The server ends the listener's connection and the reads pool's, as a
  // restart would: the listener connects again, and since a notice may have
  // been missed, the api plans again, on a reads connection it opens for it.
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    const { rowCount } = await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name IN ('ttr-api-notices', 'ttr-api-reads')");
    expect(rowCount).toBe(before.length + 1);
  } finally {
    await admin.end();
  }
  const [again] = await eventually(async () => (planned("notices reconnected").length > 0 ? planned("notices reconnected") : undefined), 10_000, "the planning after the reconnect");
  expect(again!.connections).toBe(1);
  const now = await readsConnections(url);
  expect(now).toHaveLength(1);
  expect(before).not.toContain(now[0]);
}, 60_000);
