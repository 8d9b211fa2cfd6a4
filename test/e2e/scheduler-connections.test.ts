// The scheduler's loop keeps to one PostgreSQL connection, whatever else the
// process is asked meanwhile. Each connection makes its own kept plans the
// first time it runs a statement, about 0.4 s for a tick's statements over
// 70 day partitions; a loop that moved to a new connection would pay that
// in the middle of firing (docs/storage.md, "Kept plans and connections").
// Here /metrics (whose queue depth is a statement) and /readyz (a ping) are
// asked continuously, so that they often come while a tick holds its
// connection: they must be served from a pool of their own. And when day
// partitions are added (or detached) by another process, the loop plans its
// statements again at once, on its own connection, between two ticks; and
// again once the connection that hears of such changes was made again.
import { clientRunner, ensurePartitions } from "@ttr/db";
import { freePort } from "@ttr/platform";
import pg from "pg";
import { afterAll, expect, it } from "vitest";
import { freshDatabase, type TestDatabase } from "../support/db.js";
import { eventually } from "../support/rows.js";
import { killService, launchService, type Service, serviceEnv } from "../support/system.js";

let database: TestDatabase | undefined;
let scheduler: Service | undefined;
let second: { database: TestDatabase; scheduler?: Service } | undefined;

afterAll(async () => {
  if (scheduler) await killService(scheduler, "SIGKILL");
  if (second?.scheduler) await killService(second.scheduler, "SIGKILL");
  await database?.drop();
  await second?.database.drop();
});

/** The scheduler's loop connection (its process id), once it has one: its planning at start opens it, and every tick then runs on it. */
const loopConnection = (url: string) =>
  eventually(
    async () => {
      const pids = (await backends(url)).get("ttr-scheduler") ?? [];
      return pids.length > 0 ? pids : undefined;
    },
    10_000,
    "the scheduler's loop connection",
  );

/** The backends of the scheduler's database, by application name. */
async function backends(url: string): Promise<Map<string, number[]>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ app: string; pid: number }>(
      "SELECT application_name AS app, pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() ORDER BY pid",
    );
    const out = new Map<string, number[]>();
    for (const r of rows) out.set(r.app, [...(out.get(r.app) ?? []), r.pid]);
    return out;
  } finally {
    await client.end();
  }
}

it("ticks on one connection while /metrics and /readyz are asked without pause", async () => {
  database = await freshDatabase();
  const port = await freePort();
  scheduler = await launchService("scheduler", "services/scheduler/dist/main.js", { ...serviceEnv(database.url), METRICS_PORT: String(port) }, port);
  const url = database.url;
  const before = await loopConnection(url);
  expect(before).toHaveLength(1);

  // 8 askers, each asking again as soon as answered, for 6 s: six ticks and a round of sweeps
  const until = Date.now() + 6000;
  let asked = 0;
  const asker = async (path: string) => {
    while (Date.now() < until) {
      const res = await fetch(`http://127.0.0.1:${port}${path}`);
      await res.arrayBuffer();
      expect(res.status).toBe(200);
      asked++;
    }
  };
  await Promise.all(Array.from({ length: 8 }, (_, i) => asker(i % 2 === 0 ? "/metrics" : "/readyz")));
  expect(asked).toBeGreaterThan(100);

  const after = await backends(url);
  // the same single connection served every tick
  expect(after.get("ttr-scheduler")).toEqual(before);
  // and the askers were served by the probes' pool (at most 2 connections)
  expect(after.get("ttr-scheduler-probes")?.length).toBeGreaterThanOrEqual(1);
  expect(after.get("ttr-scheduler-probes")?.length).toBeLessThanOrEqual(2);
}, 60_000);

it("plans its statements at start, as soon as another process adds day partitions, and after its leadership connection was lost", async () => {
  const db = await freshDatabase();
  second = { database: db };
  const port = await freePort();
  second.scheduler = await launchService("scheduler", "services/scheduler/dist/main.js", { ...serviceEnv(db.url), LOG_LEVEL: "info", METRICS_PORT: String(port) }, port);
  const service = second.scheduler;
  const before = await loopConnection(db.url);
  const planned = (reason: string) =>
    service.output
      .join("")
      .split("\n")
      .filter((l) => l.includes("planned the loop's statements") && l.includes(`"reason":"${reason}"`));
  // once at start, before any notice
  await eventually(async () => (planned("start").length > 0 ? true : undefined), 5000, "the planning at start");
  expect(planned("partitions changed")).toEqual([]);

  // days 30 to 37 from now do not exist yet: this makes them
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    const made = await ensurePartitions(clientRunner(client), new Date(Date.now() + 30 * 86_400_000));
    expect(made).toBeGreaterThan(0);
  } finally {
    await client.end();
  }
  const announced = Date.now();
  const [line] = await eventually(async () => (planned("partitions changed").length > 0 ? planned("partitions changed") : undefined), 5000, "the loop's planning");
  const logged = JSON.parse(line!) as { ms: number; timestamp?: string };
  expect(logged.ms).toBeGreaterThanOrEqual(0);
  // at once, not at the next sweep: within about a tick of the notice
  expect(Date.now() - announced).toBeLessThan(3000);
  // on the loop's own connection, never beside a tick on a second one
  expect((await backends(db.url)).get("ttr-scheduler")).toEqual(before);

  // The server ends the leadership's connection and the loop's, as a restart
  // would: once the leadership listens again (a notice may have been missed),
  // the loop plans again, on a new connection of its pool.
  const admin = new pg.Client({ connectionString: db.url });
  await admin.connect();
  try {
    const { rowCount } = await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name IN ('ttr-scheduler-leader', 'ttr-scheduler')");
    expect(rowCount).toBe(2);
  } finally {
    await admin.end();
  }
  await eventually(async () => (planned("leadership reconnected").length > 0 ? true : undefined), 10_000, "the planning after the reconnect");
  const now = await loopConnection(db.url);
  expect(now).toHaveLength(1);
  expect(now).not.toEqual(before);
}, 60_000);
