// `ttr migrate` by a role that may connect only to its own database (no
// CONNECT on `postgres`, as managed services often set it up): the database
// was created beforehand, so it is found by connecting to it, and migrated.
// On a server of its own: the test takes CONNECT on `postgres` away.
import { execFile } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type PgServer, startPostgres } from "./servers.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const run = promisify(execFile);
let server: PgServer;

beforeAll(async () => {
  server = await startPostgres();
  await server.start();
  const admin = new pg.Client({ connectionString: server.url("postgres") });
  await admin.connect();
  await admin.query("CREATE ROLE app LOGIN");
  await admin.query("CREATE DATABASE app_db OWNER app");
  await admin.query("REVOKE CONNECT ON DATABASE postgres FROM PUBLIC");
  await admin.end();
}, 60_000);
afterAll(async () => {
  await server?.close();
});

it("migrates a database created beforehand for a role without CONNECT on postgres", async () => {
  const url = server.url("app_db").replace("postgres@", "app@");
  const { stdout } = await run(process.execPath, [path.join(root, "scripts", "ttr.mjs"), "migrate", "--json"], { env: { ...process.env, DATABASE_URL: url } });
  expect(JSON.parse(stdout)).toEqual({ ok: true });
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const { rows } = await client.query("SELECT count(*)::int AS n FROM pg_tables WHERE tablename = 'projects'");
  await client.end();
  expect(rows[0].n).toBe(1);
}, 60_000);
