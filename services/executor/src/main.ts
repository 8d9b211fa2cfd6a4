// Starts an executor: a BullMQ worker sending attempts, plus health and
// metrics. Scale by running more processes: they share nothing but Redis and
// PostgreSQL.
import { Worker } from "bullmq";
import { ATTEMPT_QUEUE, ATTEMPTS_PER_JOB, attemptsOfJob } from "@ttr/core";
import { createPgRunner, dbTakesWrites, refuseUnmigrated } from "@ttr/db";
import { BackgroundWork, createLogger, createRedis, exitWithJsonOnCrash, redisSettingsOf, createRegistry, OutageLog, orAfter, RepeatLog, redisPing, startOpsServer, within } from "@ttr/platform";
import { type ExecutorEnv, loadEnv } from "./env.js";
import { createMetrics } from "./metrics.js";
import { formatSubnet } from "./net-guard.js";
import { Notifier } from "./notify.js";
import { destroyAgents } from "./send.js";
import { keysOf, refuseToStart, signer } from "./signing.js";
import { AttemptSlots } from "./slots.js";
import { attemptBatches, processJob, whileDatabaseDown } from "./worker.js";

// a port taken, a database never migrated: one JSON line and exit 1, not a stack trace
exitWithJsonOnCrash("executor");
let env: ExecutorEnv;
try {
  env = loadEnv();
} catch (err) {
  // A configuration that cannot be right (a malformed TTR_ALLOW_NETWORKS
  // range, say) stops the process at once, with one JSON line saying why.
  createLogger("executor").error("executor stopped", { error: (err as Error).message });
  process.exit(1);
}
const log = createLogger("executor", env.LOG_LEVEL);
// Its statements (start and finish of attempts) name one day each, pruned while planning: see customPlans.
const db = createPgRunner(env.DATABASE_URL, { max: env.DB_POOL_SIZE, applicationName: "ttr-executor", customPlans: true });
const redis = createRedis(redisSettingsOf(env), "ttr-executor", log);
const registry = createRegistry("executor");
const metrics = createMetrics(registry);
const dbOutage = new OutageLog(log, "postgres", { connection: "ttr-executor" });
const keys = keysOf(env);
// Health and readiness are served from the start: while the database is
// waited for below, /healthz answers 200 and /readyz 503, so a pod started
// during an outage is not killed by its probes. Ready takes the start's own
// database check too (`started`): an executor that is about to refuse to
// start is never ready.
let started = false;
// Once started, the probe logs an outage (and its end) that no job shows,
// an executor with nothing to send meanwhile.
const takesWrites = dbOutage.watched(() => dbTakesWrites(db));
const ops = await startOpsServer(env.METRICS_PORT, registry, { postgres: async () => started && (await takesWrites()), redis: () => redisPing(redis) });
// Until the worker runs nothing is in flight: a stop signal while the
// database is waited for below ends the process at once, with exit 0.
let stopRequested = false;
const stopWhileStarting = (signal: string) => {
  stopRequested = true;
  log.info("shutting down", { signal });
  ops.close();
  void within(1000, redis.quit()).finally(() => process.exit(0));
};
const onStartSignal = { SIGTERM: () => stopWhileStarting("SIGTERM"), SIGINT: () => stopWhileStarting("SIGINT") };
process.on("SIGTERM", onStartSignal.SIGTERM);
process.on("SIGINT", onStartSignal.SIGINT);
// A database without this version's migrations stops it (saying so); without
// a key, whether one is needed takes the database. Both wait for it if down.
const refusal = await whileDatabaseDown(dbOutage, async () => {
  await refuseUnmigrated(db);
  return refuseToStart(db, keys);
});
// stopped meanwhile, as the database came back: no worker is made, the exit is under way
if (stopRequested) await new Promise(() => {});
if (refusal !== null) {
  log.error(refusal);
  await db.end();
  process.exit(1);
}
const sign = signer(db, keys);
const notifier = new Notifier({
  db,
  log,
  sign,
  blockPrivateNetworks: env.TTR_BLOCK_PRIVATE_NETWORKS,
  allowNetworks: env.TTR_ALLOW_NETWORKS,
  retryDelaysSeconds: env.TTR_NOTIFY_RETRY_DELAYS_SECONDS,
});
const slots = new AttemptSlots(env.EXECUTOR_CONCURRENCY, ATTEMPTS_PER_JOB);
const deps = {
  env,
  slots,
  db,
  batches: attemptBatches(db, env, metrics),
  redis,
  log,
  metrics,
  dbOutage,
  redisOutage: new OutageLog(log, "redis", { connection: "ttr-executor" }),
  sign,
  notifier,
  recordings: new BackgroundWork(),
};

// maxStalledCount 0: a job whose worker died mid-attempt is failed, never run
// again (docs/concepts.md, lost attempts); the reaper closes its execution.
// The jobs held at once follow the attempts in flight (slots.ts).
const worker: Worker = new Worker(
  ATTEMPT_QUEUE,
  async (job) => {
    const attempts = attemptsOfJob(job.data); // data that is not an attempt job fails the job, saying why
    slots.took(attempts.length);
    try {
      await processJob(deps, attempts);
    } finally {
      slots.released();
    }
  },
  { connection: redis, prefix: env.TTR_REDIS_PREFIX, concurrency: slots.jobLimit(), maxStalledCount: 0, skipVersionCheck: true },
);
// The jobs held at once follow the slots: a job taken or done with, or an
// attempt out of its slot, changes how many more the worker may take.
slots.onChange = () => {
  worker.concurrency = slots.jobLimit();
};
worker.on("failed", (job, err) => log.error("attempt job failed", { jobId: job?.id, error: err.message }));
// The worker's own connections fail with Redis, again at every retry: once per outage.
const workerOutage = new OutageLog(log, "redis", { connection: "ttr-executor worker" });
// Jobs that vanished from Redis while being sent (flushed, restarted empty)
// cannot be completed there, each with an error: the attempts themselves
// are recorded in PostgreSQL all the same.
const vanished = new RepeatLog(log, "queue jobs vanished from Redis while being sent; their outcomes are recorded all the same");
// BullMQ says "ready" only once, at start, not after a reconnection: the
// recovery is seen by asking Redis until it answers.
const redisAnswers = async () => {
  // a frozen Redis may hold a PING without end: asked again a second later, not piled up
  if (!(await orAfter(redisPing(redis), 1000, () => false))) throw new Error("Redis does not answer yet");
};
worker.on("error", (err) => (/Missing (key|lock) for job/.test(err.message) ? vanished.note(err) : workerOutage.failedUntil(err, redisAnswers)));

started = true;
log.info("executor started", {
  metricsPort: env.METRICS_PORT,
  concurrency: env.EXECUTOR_CONCURRENCY,
  blockPrivateNetworks: env.TTR_BLOCK_PRIVATE_NETWORKS,
  allowNetworks: env.TTR_ALLOW_NETWORKS.map(formatSubnet),
});

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  log.info("shutting down: finishing attempts in flight", { signal });
  const graceEnds = Date.now() + env.EXECUTOR_SHUTDOWN_GRACE_SECONDS * 1000;
  // attempts waiting for a slot are not started now: the scheduler sends them again
  slots.close();
  // BullMQ's close waits for Redis to take its jobs back: with Redis down and
  // no job in hand there is nothing to wait for.
  await within(env.EXECUTOR_SHUTDOWN_GRACE_SECONDS * 1000, Promise.race([worker.close(), idleWithoutRedis()]));
  // the outcomes of the attempts sent, which their jobs no longer wait for
  await within(Math.max(0, graceEnds - Date.now()), deps.recordings.drain());
  // dead-letter notifications under way, in what is left of the grace period
  await within(Math.max(0, graceEnds - Date.now()), notifier.drain());
  ops.close();
  destroyAgents();
  await Promise.allSettled([db.end()]);
  // QUIT would wait for a Redis that is down: a second at most.
  await within(1000, redis.quit());
  log.info("executor stopped");
  process.exit(0);
}
/** Resolves once the worker holds no job while Redis is not connected. */
function idleWithoutRedis(): Promise<void> {
  return new Promise((resolve) => {
    const check = setInterval(() => {
      if (slots.idle() && redis.status !== "ready") {
        clearInterval(check);
        resolve();
      }
    }, 100);
  });
}

process.off("SIGTERM", onStartSignal.SIGTERM);
process.off("SIGINT", onStartSignal.SIGINT);
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));
