// A retention pass waits for transactions that began before it (they could
// still write to an old day), but not for autovacuum: the day tables vacuum
// early, so on a busy database a worker is often at work, and waiting for it
// deferred every old day, pass after pass. On a server of its own, with
// autovacuum waking every second and kept busy on a slow table.
import { applyMigrations, createDatabaseIfMissing, createDb, createProject, prune } from "@ttr/db";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ago, day, retentionRows } from "../../packages/db/test/retention-support.js";
import { type PgServer, startPostgres } from "./servers.js";
import { until } from "./rig.js";

let server: PgServer;
let client: pg.Client;

beforeAll(async () => {
  server = await startPostgres();
  await server.start();
  const admin = new pg.Client({ connectionString: server.url("postgres") });
  await admin.connect();
  await admin.query("ALTER SYSTEM SET autovacuum_naptime = '1s'");
  await admin.query("SELECT pg_reload_conf()");
  await admin.end();
  await createDatabaseIfMissing(server.url());
  await applyMigrations(server.url());
  client = new pg.Client({ connectionString: server.url() });
  await client.connect();
});

afterAll(async () => {
  await client?.end();
  await server?.close();
});

it("an autovacuum worker at work in the database does not hold back the removal of an old day", async () => {
  const db = createDb(server.url(), { max: 1 });
  const { projectId } = await createProject(db, "autovacuum", 1000);
  await db.$disconnect();
  await retentionRows(() => ({ client, projectId })).seed(20, { partDay: day(-40), status: "completed", updatedAt: ago(40) });
  // dead rows in a table whose vacuum sleeps after every page: a worker stays busy on it for a minute
  await client.query(
    `CREATE TABLE slow_to_vacuum (id int PRIMARY KEY, v text) WITH (autovacuum_vacuum_cost_delay = 100, autovacuum_vacuum_cost_limit = 1,
       autovacuum_vacuum_threshold = 0, autovacuum_vacuum_scale_factor = 0)`,
  );
  await client.query("INSERT INTO slow_to_vacuum SELECT i, repeat('x', 200) FROM generate_series(1, 200000) i");
  await client.query("UPDATE slow_to_vacuum SET v = repeat('y', 200)");
  const workers = `SELECT count(*)::int AS n FROM pg_stat_activity
    WHERE datname = current_database() AND backend_type = 'autovacuum worker' AND xact_start IS NOT NULL AND query LIKE '%slow_to_vacuum%'`;
  await until(async () => (await client.query(workers)).rows[0].n > 0, 30_000, "an autovacuum worker is at work");

  const r = await prune(server.url(), { olderThanDays: 30, settleTimeoutMs: 2000 });
  expect(r).toMatchObject({ triggers: 20, deferred: 0 });
  expect((await client.query(workers)).rows[0].n).toBeGreaterThan(0); // it was at work all along
});
