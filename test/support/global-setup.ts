// Once per `vitest run`: find PostgreSQL and Redis (the order in docs/configuration.md), build
// a migrated template database for this run, and remove everything the run
// created when it ends. Test files clone the template (test/support/db.ts).
import pg from "pg";
import { Redis } from "ioredis";
import { applyMigrations, createDatabaseIfMissing } from "@ttr/db";
import { databaseUrl, resolveInfra } from "@ttr/platform";
import path from "node:path";

const STALE_MS = 6 * 3600 * 1000;

async function dropDatabases(serverUrl: string, match: (name: string) => boolean): Promise<void> {
  const admin = new pg.Client({ connectionString: databaseUrl(serverUrl, "postgres") });
  await admin.connect();
  try {
    const { rows } = await admin.query<{ datname: string }>("SELECT datname FROM pg_database WHERE datname LIKE 'ttr\\_t\\_%'");
    for (const { datname } of rows) {
      if (match(datname)) await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    }
  } finally {
    await admin.end();
  }
}

export default async function setup(): Promise<() => Promise<void>> {
  const infra = await resolveInfra({ dataDir: path.resolve(".ttr"), log: (m) => console.log(m) });
  const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const prefix = `ttr_t_${run}`;
  const template = `${prefix}_tpl`;

  // Runs killed before their teardown leave databases behind: clear old ones.
  await dropDatabases(infra.postgresServerUrl, (name) => {
    const stamp = Number.parseInt(name.slice(6, 14), 36);
    return Number.isFinite(stamp) && Date.now() - stamp > STALE_MS;
  });

  const templateUrl = databaseUrl(infra.postgresServerUrl, template);
  await createDatabaseIfMissing(templateUrl);
  await applyMigrations(templateUrl);

  process.env.TTR_TEST_PG_SERVER = infra.postgresServerUrl;
  process.env.TTR_TEST_TEMPLATE_DB = template;
  process.env.TTR_TEST_PREFIX = prefix;
  process.env.REDIS_URL = infra.redisUrl;

  return async () => {
    await dropDatabases(infra.postgresServerUrl, (name) => name.startsWith(prefix));
    const redis = new Redis(infra.redisUrl);
    let cursor = "0";
    do {
      const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000);
      cursor = next;
      if (keys.length) await redis.del(...keys);
    } while (cursor !== "0");
    await redis.quit();
    await infra.stop();
  };
}
