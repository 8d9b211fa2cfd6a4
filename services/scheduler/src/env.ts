import Joi from "joi";
import { MAX_RETENTION_DAYS } from "@ttr/db";
import { type CommonEnv, commonEnv, readEnv } from "@ttr/platform";

export interface SchedulerEnv extends CommonEnv {
  SCHEDULER_TICK_MS: number;
  SCHEDULER_BATCH_SIZE: number;
  SCHEDULER_SLOW_TICK_MS: number;
  METRICS_PORT: number;
  DB_POOL_SIZE: number;
  TTR_RETENTION_DAYS: number;
}

export function loadEnv(env: NodeJS.ProcessEnv = process.env): SchedulerEnv {
  return readEnv<SchedulerEnv>(
    Joi.object({
      ...commonEnv,
      /** how often due triggers are checked (docs/concepts.md) */
      SCHEDULER_TICK_MS: Joi.number().integer().min(50).max(60_000).default(1000),
      /** due triggers claimed by a tick's first statement; full batches double the next, up to ten times this (docs/configuration.md) */
      SCHEDULER_BATCH_SIZE: Joi.number().integer().min(1).max(10_000).default(100),
      /** a tick or a round of sweeps longer than this logs its steps (docs/operations.md, slow ticks); half the tick interval by default */
      SCHEDULER_SLOW_TICK_MS: Joi.number()
        .integer()
        .min(1)
        .max(600_000)
        .default(Joi.ref("SCHEDULER_TICK_MS", { adjust: (tick: number) => Math.floor(tick / 2) })),
      /** port of /healthz, /readyz and /metrics */
      METRICS_PORT: Joi.number().port().default(9464),
      DB_POOL_SIZE: Joi.number().integer().min(2).max(100).default(5),
      /** history kept, in days (docs/retention.md); 0 keeps everything */
      TTR_RETENTION_DAYS: Joi.number().integer().min(0).max(MAX_RETENTION_DAYS).default(30),
    }),
    env,
  );
}
