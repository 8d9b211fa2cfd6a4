// docs/configuration.md: with no PostgreSQL or Redis reachable, an embedded PostgreSQL
// and a redis-server are started for the run, and work.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { Redis } from "ioredis";
import { afterAll, expect, it } from "vitest";
import { applyMigrations, createDatabaseIfMissing } from "@ttr/db";
import { canConnect, databaseUrl, freePort, resolveInfra } from "@ttr/platform";

const dataDir = mkdtempSync(path.join(os.tmpdir(), "ttr-infra-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

it("starts an embedded PostgreSQL and a redis-server when none is reachable", async () => {
  const [noPg, noRedis] = [await freePort(), await freePort()];
  const infra = await resolveInfra({ env: {}, dataDir, localPostgresPort: noPg, localRedisPort: noRedis });
  try {
    expect(infra.origins.postgres).toMatch(/^embedded PostgreSQL/);
    expect(infra.origins.redis).toBe("redis-server started for this run");
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
  } finally {
    await infra.stop();
  }
  const pgPort = Number(new URL(infra.postgresServerUrl).port);
  const redisPort = Number(new URL(infra.redisUrl).port);
  expect(await canConnect("127.0.0.1", pgPort)).toBe(false);
  expect(await canConnect("127.0.0.1", redisPort)).toBe(false);
}, 120_000);
