// Starts the api: public API, health and metrics (and later the dashboard).
import { createDb, createPgRunner, createReadsRunner, dbPing, ensurePartitions, isDatabaseUnavailable, listenForNotices, PARTITIONS_CHANNEL, planDashboardReads, refuseUnmigratedAtStart } from "@ttr/db";
import { createLogger, createRedis, exitWithJsonOnCrash, OutageLog, redisSettingsOf, createRegistry } from "@ttr/platform";
import { createApp } from "./app.js";
import { loadEnv } from "./env.js";
import { PROBE_MS } from "./http/storage-watch.js";
import { createServer } from "./server.js";
import { STATEMENT_LIMIT_MS, STORAGE_ANSWER_MS } from "./storage-bounds.js";

// a bad setting, a port taken: one JSON line and exit 1, not a stack trace
exitWithJsonOnCrash("api");
const env = loadEnv();
const log = createLogger("api", env.LOG_LEVEL);
const db = createDb(env.DATABASE_URL, { max: env.DB_POOL_SIZE, applicationName: "ttr-api" });
const redis = createRedis(redisSettingsOf(env), "ttr-api", log);
const registry = createRegistry("api");
// The pool of /schedule, /cancel, API keys, sessions, quota, the
// dashboard's trigger edits and /readyz, with the bounds of storage-bounds.ts.
const pg = createPgRunner(env.DATABASE_URL, {
  max: Math.max(2, Math.ceil(env.DB_POOL_SIZE / 2)),
  applicationName: "ttr-api",
  queryTimeoutMs: STORAGE_ANSWER_MS,
  connectTimeoutMs: STORAGE_ANSWER_MS,
  settings: { statement_timeout: STATEMENT_LIMIT_MS },
});
// one connection that only asks whether the server answers (http/storage-watch.ts,
// which stops waiting after PROBE_MS; these bounds only free the connection),
// kept open: a probe on a cold pool would first connect and authenticate
const liveness = createPgRunner(env.DATABASE_URL, {
  max: 1,
  applicationName: "ttr-api-liveness",
  queryTimeoutMs: 2 * PROBE_MS,
  connectTimeoutMs: 2 * PROBE_MS,
  idleTimeoutMs: 0,
});
// the dashboard's read pool: half of DB_POOL_SIZE, at least 4
const reads = createReadsRunner(env.DATABASE_URL, { max: Math.max(4, Math.ceil(env.DB_POOL_SIZE / 2)), statementTimeoutMs: env.DB_READ_TIMEOUT_MS });
// one line per PostgreSQL outage and one when it ends, whatever saw it
const dbOutage = new OutageLog(log, "postgres", { connection: "ttr-api" });
const app = createApp({ db, reads, pg, liveness, redis, log, dbOutage, registry, cookieSecure: env.TTR_COOKIE_SECURE, redisPrefix: env.TTR_REDIS_PREFIX, authFailuresPerMinute: env.TTR_AUTH_FAILURES_PER_MINUTE });
app.set("trust proxy", env.TRUST_PROXY);

// The scheduler makes each day's history partitions ahead; the api does too,
// so that writes never lack one while no scheduler runs (docs/retention.md).
// With PostgreSQL away (an api started during an outage) that is an outage
// line, not an error, and it is tried again soon rather than in 6 hours.
const PARTITIONS_EVERY_MS = 6 * 3_600_000;
const PARTITIONS_RETRY_MS = 30_000;
// (on Prisma's pool: making a day waits for table locks, which that 3-s bound would cut short)
const keepPartitions = (): void => {
  ensurePartitions(db, new Date()).then(
    () => {
      dbOutage.recovered();
      setTimeout(keepPartitions, PARTITIONS_EVERY_MS).unref();
    },
    (err: Error) => {
      if (isDatabaseUnavailable(err)) dbOutage.failed(err);
      else log.error("cannot make history partitions", { error: err.message });
      setTimeout(keepPartitions, PARTITIONS_RETRY_MS).unref();
    },
  );
};

// The dashboard's reads keep their plans per connection: a new connection
// makes them on first use, and day partitions added or detached (by any
// api, the scheduler's retention, `ttr prune`) make each connection make
// them again. The reads pool's idle connections do it ahead, at start, on
// each notice of a change and when the listener had lost its connection (a
// notice may have come meanwhile, and a database that restarted left the
// pool none of its connections), so that no dashboard read waits for it
// (docs/storage.md, "Kept plans and connections"); a notice during a
// planning asks for one more after it.
type PlanReason = "start" | "partitions changed" | "notices reconnected";
let planning: Promise<void> | null = null;
let planAgain: PlanReason | null = null;
const planReads = (reason: PlanReason): void => {
  if (planning) {
    planAgain = reason;
    return;
  }
  const started = Date.now();
  // after a restart of the database the pool has no connection left: open one
  const opened = reason === "notices reconnected" ? dbPing(reads).catch(() => false) : Promise.resolve(true);
  planning = opened
    .then(() => reads.eachIdleConnection((c) => planDashboardReads(c)))
    .then(
      (connections) => void log.info("planned the dashboard reads", { reason, connections, ms: Date.now() - started }),
      (err: Error) => void log.warn("planning the dashboard reads failed", { reason, error: err.message }),
    )
    .finally(() => {
      planning = null;
      const again = planAgain;
      planAgain = null;
      if (again) planReads(again);
    });
};
const partitionNotices = listenForNotices(
  env.DATABASE_URL,
  PARTITIONS_CHANNEL,
  (why) => planReads(why === "notice" ? "partitions changed" : "notices reconnected"),
  "ttr-api-notices",
);

// One query on each pool before listening (at most 3 s): Prisma loads its
// query compiler and the pools open a connection now, not during the first
// request or readiness probe (which has under a second to answer). A
// database that is down is reported by /readyz and the requests that need it.
// Meanwhile, a database that answers but lacks this version's migrations
// stops the api, saying so, instead of failing every request (one that does
// not answer yet is checked again until it does). The history partitions'
// upkeep starts after that check, so an unmigrated database gets that one
// line alone.
const warm = Promise.allSettled([dbPing(db), dbPing(pg), dbPing(reads)]);
await Promise.all([refuseUnmigratedAtStart(pg, 3000), Promise.race([warm, new Promise((resolve) => setTimeout(resolve, 3000).unref())])]);
keepPartitions();
// on the reads connection the warm-up opened, while requests start to come
planReads("start");

const server = createServer(app, log);
server.listen(env.PORT, env.HOST, () => {
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : env.PORT;
  log.info("api listening", { port });
});

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  log.info("shutting down", { signal });
  server.close();
  server.closeIdleConnections();
  const timer = setTimeout(() => process.exit(0), 10_000);
  timer.unref();
  await new Promise((r) => server.once("close", r));
  await Promise.allSettled([partitionNotices.close(), planning, db.$disconnect(), reads.end(), pg.end(), liveness.end(), redis.quit()]);
  process.exit(0);
}
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));
