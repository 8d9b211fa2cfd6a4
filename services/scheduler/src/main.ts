// Starts a scheduler replica: it serves health and metrics at once, and runs
// the loop only while it holds the leadership lease.
import { Queue } from "bullmq";
import { ATTEMPT_QUEUE } from "@ttr/core";
import { createPgRunner, dbTakesWrites, type NoticeReason, PARTITIONS_CHANNEL, queueDepth, refuseUnmigratedAtStart } from "@ttr/db";
import { createLogger, createRedis, exitWithJsonOnCrash, orAfter, READY_TIMEOUT_MS, redisSettingsOf, createRegistry, redisPing, startOpsServer, within } from "@ttr/platform";
import { PolicyAdmission } from "./admit.js";
import { loadEnv } from "./env.js";
import { Leadership, SCHEDULER_SESSION_SETTINGS } from "./leader.js";
import { SchedulerLoop } from "./loop.js";
import { QueueRecovery } from "./recover.js";
import { RetentionLoop } from "./retention.js";
import { clearLeaderGauges, createMetrics } from "./metrics.js";

// a bad setting, a port taken: one JSON line and exit 1, not a stack trace
exitWithJsonOnCrash("scheduler");
const env = loadEnv();
const log = createLogger("scheduler", env.LOG_LEVEL);
// A tick's statements take milliseconds; one that has not answered in 10 s
// is on a dead connection, and the tick gives up and tries again. The
// server ends a transaction this replica left open (frozen, cut off).
const statements = {
  queryTimeoutMs: 10_000,
  // its sweeps cost the same from the first one on (packages/db/src/pool.ts)
  genericPlans: true,
  settings: SCHEDULER_SESSION_SETTINGS,
};
// The loop's pool serves the loop alone, one statement at a time, so it
// reuses the same connection (or two, with tag limits), whose kept plans
// are made once; idle connections stay open. A scrape or a probe on this
// pool while a tick held its connection would open another, the next tick
// would take that one (the last returned), and plan every statement again:
// about 0.4 s over 70 day partitions (docs/storage.md).
const db = createPgRunner(env.DATABASE_URL, { ...statements, max: env.DB_POOL_SIZE, applicationName: "ttr-scheduler", idleTimeoutMs: 0 });
// /metrics (the queue depth) and /readyz
const probes = createPgRunner(env.DATABASE_URL, { ...statements, max: 2, applicationName: "ttr-scheduler-probes" });
const redis = createRedis(redisSettingsOf(env), "ttr-scheduler", log);
const queue = new Queue(ATTEMPT_QUEUE, { connection: redis, prefix: env.TTR_REDIS_PREFIX, streams: { events: { maxLen: 1000 } } });
// already logged once per outage by the connection's own listener
queue.on("error", () => {});
const registry = createRegistry("scheduler");
// `loop` is made below, before the first scrape can come.
// A scrape answers within the readiness bound even when PostgreSQL does not
// (Prometheus gives up on a scrape after 10 s and would drop every series).
const depthOrNull = () => orAfter(queueDepth(probes).catch(() => null), READY_TIMEOUT_MS, () => null);
const metrics = createMetrics(registry, depthOrNull, () => loop.runningSeconds());
const admission = new PolicyAdmission(db, redis, env.TTR_REDIS_PREFIX);
// The leadership's connection also hears of day partitions added or
// detached, by any process (the api, retention, `ttr prune`).
// After that connection was lost, one may have been missed, and a database
// that restarted has left the loop's pool no connection: plan again.
const partitionNotices = {
  [PARTITIONS_CHANNEL]: (why: NoticeReason) => loop.planStatements(why === "notice" ? "partitions changed" : "leadership reconnected"),
};
const leadership = new Leadership(env.DATABASE_URL, log, (leading) => {
  metrics.leader.set(leading ? 1 : 0);
  if (leading) {
    loop.start();
    retention.start();
  } else {
    // after the tick or pass in progress, which may still set them
    void Promise.all([loop.stop(), retention.stop()]).then(() => {
      if (!leadership.held()) clearLeaderGauges(metrics);
    });
  }
}, partitionNotices);
const base = { env, db, queue, redis, log, registry, metrics, admission, lease: leadership };
const recovery = new QueueRecovery(base);
const loop = new SchedulerLoop({ ...base, recovery });
const retention = new RetentionLoop(env.DATABASE_URL, env.TTR_RETENTION_DAYS, metrics, log);
// Back after an outage: a restart, even with persistence, may have lost jobs.
let redisWasDown = false;
redis.on("error", () => {
  redisWasDown = true;
});
redis.on("ready", () => {
  if (redisWasDown) recovery.redisReturned();
  redisWasDown = false;
});

const ops = await startOpsServer(env.METRICS_PORT, registry, { postgres: () => dbTakesWrites(probes), redis: () => redisPing(redis) });
log.info("scheduler started", { metricsPort: env.METRICS_PORT, tickMs: env.SCHEDULER_TICK_MS, batchSize: env.SCHEDULER_BATCH_SIZE, retentionDays: env.TTR_RETENTION_DAYS });
let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  log.info("shutting down", { signal });
  // Waits on a store that is down would never end: each step gets a bound.
  await within(5000, loop.stop());
  await within(5000, retention.stop());
  await within(2000, leadership.stop());
  ops.close();
  await within(2000, Promise.allSettled([queue.close(), db.end(), probes.end()]));
  await within(1000, redis.quit());
  process.exit(0);
}
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));

// A database without this version's migrations stops it here, saying so.
await refuseUnmigratedAtStart(probes);
if (!stopping) {
  // standby or not: one that takes over later has its plans made
  loop.planStatements("start");
  leadership.start();
}
