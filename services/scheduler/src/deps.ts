import type { Queue } from "bullmq";
import type { Redis } from "ioredis";
import type { DispatchCandidate, PgRunner, SqlRunner } from "@ttr/db";
import type { Logger, prom } from "@ttr/platform";
import type { SchedulerEnv } from "./env.js";
import type { Fence } from "./leader.js";
import type { QueueRecovery } from "./recover.js";
import type { Metrics } from "./metrics.js";

/**
 * Decides which due attempts may start now under their tags' policies
 * (docs/api/tag-policies.md). Returns the admitted ones, oldest first.
 */
export interface Admission {
  /** `blocked`: the `project:tag` pairs that held an attempt back in this call */
  admit(candidates: DispatchCandidate[], now: Date): Promise<{ admitted: DispatchCandidate[]; blocked: string[] }>;
  /** periodic repair of the admission state from PostgreSQL */
  reconcile(): Promise<void>;
  /** after Redis lost its data, before anything is admitted: the limited tags' state from PostgreSQL */
  restore(now: Date): Promise<void>;
}

export interface Deps {
  env: SchedulerEnv;
  /** prepared statements: their plans are kept, see packages/db/src/pool.ts */
  db: PgRunner;
  queue: Queue;
  redis: Redis;
  log: Logger;
  registry: prom.Registry;
  metrics: Metrics;
  admission: Admission;
  /** the leadership lease: every transaction of the loop checks it first (fenced) */
  lease: Fence;
  /** checks the queue against PostgreSQL when it may have lost jobs (recover.ts) */
  recovery: Pick<QueueRecovery, "request" | "run">;
}

/**
 * Runs `fn` in one transaction that first checks this replica still holds
 * the leadership lease (and keeps it from being taken over until the
 * transaction ends): a replica that lost it commits nothing.
 */
export function fenced<T>(deps: Pick<Deps, "db" | "lease">, fn: (tx: SqlRunner) => Promise<T>): Promise<T> {
  return deps.db.$transaction(async (tx) => {
    await deps.lease.check(tx);
    return fn(tx);
  });
}
