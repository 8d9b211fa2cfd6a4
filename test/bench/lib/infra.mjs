// Where a bench run gets PostgreSQL and Redis, and what it leaves behind:
// nothing. Every scenario run gets a database of its own, cloned from one
// migrated template (`ttr_bench_<run>_tpl`), and a Redis key prefix of its
// own; both are removed when the run ends (and stale ones from runs that were
// killed are removed when the next one starts).
import { randomBytes } from "node:crypto";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Redis } from "ioredis";
import pg from "pg";
import { applyMigrations, createDatabaseIfMissing } from "@ttr/db";
import { databaseUrl, resolveInfra } from "@ttr/platform";

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
export const benchDir = path.join(root, ".ttr", "bench");

const STALE_MS = 6 * 3600 * 1000;

/** Runs `fn` with a connection to the server's `postgres` database. */
async function admin(serverUrl, fn) {
  const client = new pg.Client({ connectionString: databaseUrl(serverUrl, "postgres") });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

async function dropDatabases(serverUrl, match) {
  await admin(serverUrl, async (c) => {
    const { rows } = await c.query("SELECT datname FROM pg_database WHERE datname LIKE 'ttr\\_bench\\_%'");
    for (const { datname } of rows) if (match(datname)) await c.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
  });
}

async function deleteKeys(redisUrl, pattern) {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 3 });
  try {
    let cursor = "0";
    do {
      const [next, keys] = await redis.scan(cursor, "MATCH", pattern, "COUNT", 1000);
      cursor = next;
      if (keys.length) await redis.unlink(...keys);
    } while (cursor !== "0");
  } finally {
    redis.disconnect();
  }
}

/**
 * @typedef {object} BenchDatabase
 * @property {string} name
 * @property {string} url
 * @property {string} redisPrefix
 * @property {() => Promise<void>} drop  drops the database and deletes the prefix's keys
 */

/**
 * @typedef {object} BenchContext
 * @property {string} pgServerUrl
 * @property {string} redisUrl
 * @property {string} runId
 * @property {(label?: string) => Promise<BenchDatabase>} database  a fresh, migrated database and Redis prefix
 * @property {() => Promise<void>} close
 */

/**
 * Finds PostgreSQL and Redis as `npm start` does (or takes them from the
 * options: the test suite passes its own) and migrates the run's template.
 * @param {{log?: (m: string) => void, pgServerUrl?: string, redisUrl?: string}} [opts]
 * @returns {Promise<BenchContext>}
 */
export async function openBench({ log = () => {}, pgServerUrl, redisUrl } = {}) {
  const infra =
    pgServerUrl && redisUrl
      ? { postgresServerUrl: pgServerUrl, redisUrl, stop: async () => {} }
      : await resolveInfra({ dataDir: path.join(root, ".ttr"), log });
  const runId = `${Date.now().toString(36)}${randomBytes(2).toString("hex")}`;
  const prefix = `ttr_bench_${runId}`;
  await dropDatabases(infra.postgresServerUrl, (name) => {
    const stamp = Number.parseInt(name.slice("ttr_bench_".length, "ttr_bench_".length + 8), 36);
    return Number.isFinite(stamp) && Date.now() - stamp > STALE_MS;
  });
  const template = `${prefix}_tpl`;
  await createDatabaseIfMissing(databaseUrl(infra.postgresServerUrl, template));
  await applyMigrations(databaseUrl(infra.postgresServerUrl, template), { log: () => {} });

  let n = 0;
  const open = new Set();
  return {
    pgServerUrl: infra.postgresServerUrl,
    redisUrl: infra.redisUrl,
    runId,
    async database() {
      const name = `${prefix}_${++n}`;
      await admin(infra.postgresServerUrl, (c) => c.query(`CREATE DATABASE "${name}" TEMPLATE "${template}"`));
      const db = {
        name,
        url: databaseUrl(infra.postgresServerUrl, name),
        redisPrefix: name,
        async drop() {
          open.delete(db);
          await dropDatabases(infra.postgresServerUrl, (d) => d === name);
          await deleteKeys(infra.redisUrl, `${name}:*`);
        },
      };
      open.add(db);
      return db;
    },
    async close() {
      for (const db of [...open]) await db.drop().catch(() => {});
      await dropDatabases(infra.postgresServerUrl, (name) => name.startsWith(prefix));
      await deleteKeys(infra.redisUrl, `${prefix}*`);
      await infra.stop();
    },
  };
}
