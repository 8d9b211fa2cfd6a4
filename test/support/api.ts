// The api in-process on a free port, against a fresh database and Redis
// prefix, with one project and its API key.
import type { AddressInfo } from "node:net";
import { createApp } from "@ttr/api/app";
import { createServer } from "@ttr/api/server";
import { createDb, createPgRunner, createProject, createReadsRunner, type Db, type PgRunner } from "@ttr/db";
import { createLogger, createRedis, createRegistry } from "@ttr/platform";
import { freshDatabase, redisPrefix, redisUrl, type TestDatabase } from "./db.js";
import { request } from "./http.js";
import { unwatchApi, watchApi } from "./openapi-conformance.js";

export interface TestApi {
  base: string;
  db: Db;
  /** the dashboard read pool, with its statement timeout and kept plans */
  reads: PgRunner;
  pg: PgRunner;
  database: TestDatabase;
  projectId: string;
  apiKey: string;
  /** this api's Redis key prefix (TTR_REDIS_PREFIX) */
  redisPrefix: string;
  /** send to this api; `headers` are exactly what is sent */
  call: (method: string, path: string, headers?: Record<string, string | string[] | undefined>, body?: string | Buffer) => ReturnType<typeof request>;
  close(): Promise<void>;
}

export interface ApiOptions {
  quota?: number;
  readTimeoutMs?: number;
  /** TTR_AUTH_FAILURES_PER_MINUTE */
  authFailuresPerMinute?: number;
  /** TRUST_PROXY, as express's "trust proxy" setting */
  trustProxy?: boolean | number | string;
}

export async function startApi(opts: ApiOptions = {}): Promise<TestApi> {
  const database = await freshDatabase();
  const db = createDb(database.url, { max: 10, applicationName: "ttr-test" });
  const redis = createRedis(redisUrl(), "ttr-test", createLogger("test", "error"));
  const log = createLogger("api", "error");
  const pg = createPgRunner(database.url, { max: 4, applicationName: "ttr-test" });
  const reads = createReadsRunner(database.url, { max: 2, applicationName: "ttr-test-reads", statementTimeoutMs: opts.readTimeoutMs ?? 5_000 });
  const prefix = redisPrefix();
  const app = createApp({ db, reads, pg, redis, log, registry: createRegistry("api"), redisPrefix: prefix, authFailuresPerMinute: opts.authFailuresPerMinute });
  if (opts.trustProxy !== undefined) app.set("trust proxy", opts.trustProxy);
  const server = createServer(app);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { projectId, apiKey } = await createProject(db, "test", opts.quota ?? 100000);
  watchApi(base);
  return {
    base,
    db,
    reads,
    pg,
    database,
    projectId,
    apiKey,
    redisPrefix: prefix,
    call: (method, path, headers, body) => request(base, method, path, headers, body),
    async close() {
      unwatchApi(base);
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await db.$disconnect();
      await reads.end();
      await pg.end();
      await redis.quit();
      await database.drop();
    },
  };
}
