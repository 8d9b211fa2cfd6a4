// A service that cannot start says why in one JSON line and exits 1, never
// with Node's bare stack trace on stderr (docs/operations.md, logs): a
// setting that cannot be read, a port already taken, a database that was
// never migrated. And one stopped while it waits for its database at start
// exits 0, as a normal stop.
import net from "node:net";
import path from "node:path";
import pg from "pg";
import { databaseUrl, freePort } from "@ttr/platform";
import { afterAll, beforeAll, expect, it } from "vitest";
import { freshDatabase, redisPrefix, redisUrl, type TestDatabase } from "../support/db.js";
import { request } from "../support/http.js";
import { launchService } from "../support/system.js";

let database: TestDatabase;
let taken: net.Server;
let takenPort: number;

beforeAll(async () => {
  database = await freshDatabase();
  taken = net.createServer();
  await new Promise<void>((resolve) => taken.listen(0, "0.0.0.0", resolve));
  takenPort = (taken.address() as net.AddressInfo).port;
});
afterAll(async () => {
  taken?.close();
  await database?.drop();
});

const main = (service: string) => path.join("services", service, "dist", "main.js");

/** Starts the service with `extra` over a working setting, waits for it to exit, and returns its code and output lines. */
async function failedStart(service: "api" | "scheduler" | "executor", extra: Record<string, string>) {
  const env = {
    PATH: process.env.PATH ?? "",
    DATABASE_URL: database.url,
    REDIS_URL: redisUrl(),
    TTR_REDIS_PREFIX: redisPrefix(),
    PORT: "0",
    METRICS_PORT: "0",
    ...extra,
  };
  const started = await launchService(service, main(service), env, 0, false);
  const code = await new Promise<number | null>((resolve) => {
    if (started.child.exitCode !== null) resolve(started.child.exitCode);
    else started.child.once("exit", resolve);
  });
  const lines = started.output.join("").trim().split("\n");
  return { code, lines };
}

it.each([
  ["api", { PORT: "abc" }, /"PORT" must be a number/],
  ["api", { TRUST_PROXY: "banana" }, /"TRUST_PROXY" failed custom validation because invalid IP address: banana/],
  ["api", { LOG_LEVEL: "loud" }, /"LOG_LEVEL" must be one of/],
  ["scheduler", { SCHEDULER_TICK_MS: "0" }, /"SCHEDULER_TICK_MS" must be greater than or equal to/],
  ["scheduler", { TTR_RETENTION_DAYS: "x" }, /"TTR_RETENTION_DAYS" must be a number/],
  ["executor", { METRICS_PORT: "abc" }, /"METRICS_PORT" must be a number/],
] as const)("%s with %o: one JSON line naming the setting, exit 1", async (service, extra, reason) => {
  const { code, lines } = await failedStart(service, extra);
  expect(code).toBe(1);
  expect(lines).toHaveLength(1);
  expect(JSON.parse(lines[0]!)).toMatchObject({ level: "error", service, message: `${service} stopped`, error: expect.stringMatching(reason) });
}, 30_000);

// A PostgreSQL that takes connections and never answers (a port that only
// listens): each service waits for it at start; a stop signal then is a
// normal stop, exit 0, not death by the signal (exit 143 to Kubernetes).
it.each(["api", "scheduler", "executor"] as const)("%s stopped with SIGTERM while it waits for PostgreSQL at start: exit 0", async (service) => {
  const port = await freePort();
  const env = {
    PATH: process.env.PATH ?? "",
    DATABASE_URL: `postgres://postgres@127.0.0.1:${takenPort}/ttr`,
    REDIS_URL: redisUrl(),
    TTR_REDIS_PREFIX: redisPrefix(),
    HOST: "127.0.0.1",
    [service === "api" ? "PORT" : "METRICS_PORT"]: String(port),
  };
  const started = await launchService(service, main(service), env, port, false);
  const exited = new Promise<[number | null, string | null]>((resolve) => started.child.once("exit", (code, signal) => resolve([code, signal])));
  const healthy = async () => (await request(`http://127.0.0.1:${port}`, "GET", "/healthz").catch(() => null))?.status === 200;
  while (!(await healthy())) {
    if (started.child.exitCode !== null) throw new Error(`${service} exited early:\n${started.output.join("")}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  started.child.kill("SIGTERM");
  expect(await exited, started.output.join("")).toEqual([0, null]);
}, 30_000);

it.each([
  ["api", "PORT"],
  ["scheduler", "METRICS_PORT"],
  ["executor", "METRICS_PORT"],
] as const)("%s whose %s is taken: a JSON line with EADDRINUSE, exit 1", async (service, variable) => {
  const { code, lines } = await failedStart(service, { [variable]: String(takenPort) });
  expect(code).toBe(1);
  for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
  expect(lines.map((l) => JSON.parse(l))).toContainEqual(expect.objectContaining({ level: "error", message: `${service} stopped`, code: "EADDRINUSE" }));
}, 30_000);

it("every service on a database that was never migrated: a JSON line saying to run ttr migrate, exit 1", async () => {
  const admin = new pg.Client({ connectionString: databaseUrl(process.env.TTR_TEST_PG_SERVER!, "postgres") });
  await admin.connect();
  const name = `${database.name}_bare`;
  await admin.query(`CREATE DATABASE "${name}"`);
  try {
    const starts = (["api", "scheduler", "executor"] as const).map(async (service) => {
      const { code, lines } = await failedStart(service, { DATABASE_URL: databaseUrl(process.env.TTR_TEST_PG_SERVER!, name) });
      expect(code, service).toBe(1);
      for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
      // that one line, nothing else failing before it
      expect(lines.map((l) => JSON.parse(l)).filter((l) => l.level !== "info"), service).toHaveLength(1);
      expect(JSON.parse(lines.at(-1)!)).toMatchObject({
        level: "error",
        message: `${service} stopped`,
        error: expect.stringMatching(/^the database is not migrated for this version of ttr \(run `ttr migrate`\): \d+ migration\(s\) missing, the latest \d{14}_\w+$/),
      });
    });
    await Promise.all(starts);
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.end();
  }
}, 30_000);

// Started while PostgreSQL refuses connections, a service waits; once the
// database answers and lacks the migrations, it stops with the same line.
it.each(["api", "scheduler", "executor"] as const)("%s started before its database answers stops once it finds it never migrated", async (service) => {
  const admin = new pg.Client({ connectionString: databaseUrl(process.env.TTR_TEST_PG_SERVER!, "postgres") });
  await admin.connect();
  const name = `${database.name}_late_${service}`;
  await admin.query(`CREATE DATABASE "${name}"`);
  // a port that refuses connections until it forwards them to the shared server
  const port = await freePort();
  const shared = new URL(databaseUrl(process.env.TTR_TEST_PG_SERVER!, name));
  const [upstreamPort, upstreamHost] = [Number(shared.port || 5432), shared.hostname];
  const forward = net.createServer((client) => {
    const upstream = net.connect(upstreamPort, upstreamHost);
    client.pipe(upstream).pipe(client);
    client.on("error", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
  });
  shared.host = `127.0.0.1:${port}`;
  try {
    const stopped = failedStart(service, { DATABASE_URL: shared.toString() });
    await new Promise((r) => setTimeout(r, 2000));
    await new Promise<void>((resolve) => forward.listen(port, "127.0.0.1", resolve));
    const { code, lines } = await stopped;
    expect(code).toBe(1);
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({ level: "error", message: `${service} stopped`, error: expect.stringMatching(/^the database is not migrated/) });
  } finally {
    forward.close();
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.end();
  }
}, 30_000);
