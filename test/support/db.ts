// A database of its own for each test file, cloned from the run's migrated
// template, and a Redis key prefix of its own.
import { randomBytes } from "node:crypto";
import pg from "pg";
import { databaseUrl } from "@ttr/platform";

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the tests through vitest's global setup`);
  return value;
}

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl(env("TTR_TEST_PG_SERVER"), "postgres") });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export async function freshDatabase(): Promise<TestDatabase> {
  const name = `${env("TTR_TEST_PREFIX")}_${randomBytes(4).toString("hex")}`;
  const template = env("TTR_TEST_TEMPLATE_DB");
  // CREATE DATABASE … TEMPLATE fails while another clone is being made from
  // the same template, so parallel files retry briefly.
  for (let attempt = 0; ; attempt++) {
    try {
      await admin((c) => c.query(`CREATE DATABASE "${name}" TEMPLATE "${template}"`));
      break;
    } catch (err) {
      if (attempt > 50 || !/being accessed by other users/.test(String(err))) throw err;
      await new Promise((r) => setTimeout(r, 50 + Math.random() * 100));
    }
  }
  const url = databaseUrl(env("TTR_TEST_PG_SERVER"), name);
  return { url, name, drop: () => admin((c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(() => {}) };
}

export function redisUrl(): string {
  return env("REDIS_URL");
}

export function redisPrefix(): string {
  return `${env("TTR_TEST_PREFIX")}_${randomBytes(4).toString("hex")}`;
}
