import type { Queue } from "bullmq";
import type { Db, DispatchCandidate } from "@ttr/db";
import type { Logger, prom } from "@ttr/platform";
import type { SchedulerEnv } from "./env.js";
import type { Metrics } from "./metrics.js";

/**
 * Decides which due attempts may start now under their tags' policies
 * (SPEC §4 Throughput, Concurrency). Returns the admitted ones, oldest first.
 */
export interface Admission {
  admit(candidates: DispatchCandidate[], now: Date): Promise<DispatchCandidate[]>;
}

export interface Deps {
  env: SchedulerEnv;
  db: Db;
  queue: Queue;
  log: Logger;
  registry: prom.Registry;
  metrics: Metrics;
  admission: Admission;
}
