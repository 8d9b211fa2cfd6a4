// One attempt, from queue job to execution row: start it (only from
// `planned`, so a job is never sent twice), send it, record the outcome.
import { checkAttemptJob } from "@ttr/core";
import { type AttemptRecord, attemptTags, type FinishedAttempt, finishAttempts, type PgRunner, type StartedAttempt, startAttempts } from "@ttr/db";
import { Batcher, type Logger, markEnded, markStarted } from "@ttr/platform";
import type { Redis } from "ioredis";
import type { ExecutorEnv } from "./env.js";
import type { Metrics } from "./metrics.js";
import { recordOf } from "./record.js";
import { type AttemptResult, classify, sendAttempt } from "./send.js";

export interface WorkerDeps {
  env: ExecutorEnv;
  db: PgRunner;
  batches: AttemptBatches;
  redis: Redis;
  log: Logger;
  metrics: Metrics;
}

/**
 * Starts and finishes of attempts in flight at about the same time share one
 * statement each (see Batcher): per attempt, the database does a fraction of
 * the work of two single-row statements.
 */
export interface AttemptBatches {
  start: Batcher<string, StartedAttempt | undefined>;
  finish: Batcher<{ executionId: string; record: AttemptRecord }, FinishedAttempt>;
}

export function attemptBatches(db: PgRunner, env: ExecutorEnv, metrics: Metrics): AttemptBatches {
  const opts = (statement: string) => ({ maxBatch: 200, parallel: 2, lingerMs: env.EXECUTOR_DB_LINGER_MS, onBatch: (n: number) => metrics.batchSize.observe({ statement }, n) });
  return {
    start: new Batcher((ids) => startAttempts(db, ids, env.TTR_DEFAULT_TIMEOUT_SECONDS, env.TTR_REAP_GRACE_SECONDS), opts("start")),
    finish: new Batcher((outcomes) => finishAttempts(db, outcomes), opts("finish")),
  };
}

export async function processAttempt(deps: WorkerDeps, data: unknown): Promise<void> {
  const { executionId } = checkAttemptJob(data);
  const started = await deps.batches.start.call(executionId);
  const prefix = deps.env.TTR_REDIS_PREFIX;
  if (!started) {
    // Cancelled after admission, or already started elsewhere: free what admission reserved.
    const owner = await attemptTags(deps.db, executionId);
    if (owner && owner.status !== "started") await markEnded(deps.redis, prefix, owner.projectId, owner.tags, executionId);
    deps.log.debug("attempt no longer startable", { executionId });
    return;
  }
  const sentAt = Date.now();
  await markStarted(deps.redis, prefix, started.projectId, started.tags, executionId, sentAt);
  if (started.triggeredBy === "scheduler") deps.metrics.lateness.observe((sentAt - started.scheduledAt.getTime()) / 1000);
  deps.metrics.inFlight.inc();
  let result: AttemptResult;
  try {
    result = await sendAttempt(
      { method: started.method, url: started.url, headers: started.headers, body: started.body, source: started.source },
      { timeoutSeconds: started.timeoutSeconds, blockPrivateNetworks: deps.env.TTR_BLOCK_PRIVATE_NETWORKS, reapGraceSeconds: deps.env.TTR_REAP_GRACE_SECONDS },
    );
  } finally {
    deps.metrics.inFlight.dec();
  }
  const outcome = classify(result);
  deps.metrics.attempts.inc({ outcome });
  const record = recordOf(started, result, new Date());
  const log = { triggerId: started.triggerId, executionId, attempt: started.attemptNumber, outcome, ms: Date.now() - sentAt };
  if (!record) {
    deps.log.warn("attempt not recordable; left for the reaper", log);
    return;
  }
  const { recorded, retryExecutionId } = await deps.batches.finish.call({ executionId, record });
  await markEnded(deps.redis, prefix, started.projectId, started.tags, executionId);
  deps.log.info("attempt", { ...log, status: record.responseStatus, recorded, retry: retryExecutionId !== null, deadLetter: record.isDeadLetter });
}
