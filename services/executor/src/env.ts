import Joi from "joi";
import { parseSecretKey } from "@ttr/core";
import { type CommonEnv, commonEnv, readEnv } from "@ttr/platform";
import { parseSubnet, type Subnet } from "./net-guard.js";

export interface ExecutorEnv extends CommonEnv {
  TTR_BLOCK_PRIVATE_NETWORKS: boolean;
  TTR_ALLOW_NETWORKS: readonly Subnet[];
  EXECUTOR_CONCURRENCY: number;
  EXECUTOR_SHUTDOWN_GRACE_SECONDS: number;
  METRICS_PORT: number;
  DB_POOL_SIZE: number;
  EXECUTOR_DB_LINGER_MS: number;
  EXECUTOR_FINISH_LINGER_MS: number;
  TTR_SECRET_KEY?: string;
  TTR_SECRET_KEY_PREVIOUS?: string;
  TTR_NOTIFY_RETRY_DELAYS_SECONDS: number[];
}

/** A key in TTR_SECRET_KEY's format (32 bytes, hex or base64), or unset. */
const secretKey = () =>
  Joi.string()
    .empty("")
    .custom((value: string) => {
      parseSecretKey(value);
      return value;
    }, "a 32-byte key");

export function loadEnv(env: NodeJS.ProcessEnv = process.env): ExecutorEnv {
  return readEnv<ExecutorEnv>(
    Joi.object({
      ...commonEnv,
      /** refuse targets on loopback, private, link-local and other non-public addresses */
      TTR_BLOCK_PRIVATE_NETWORKS: Joi.boolean().truthy("1").falsy("0").default(false),
      /**
       * comma-separated CIDR ranges let through that block, checked on the
       * address connected to like the block itself: `10.20.0.0/16,fd00:1::/64`
       */
      TTR_ALLOW_NETWORKS: Joi.string().empty("").custom(subnetList).default([]),
      /**
       * attempts in flight at once in this process; 200 by default because
       * more attempts in flight make larger start and finish statements
       * (docs/configuration.md, executor concurrency)
       */
      EXECUTOR_CONCURRENCY: Joi.number().integer().min(1).max(2000).default(200),
      /** on SIGTERM, how long in-flight attempts may take before the process exits anyway */
      EXECUTOR_SHUTDOWN_GRACE_SECONDS: Joi.number().integer().min(0).max(7200).default(330),
      /** port of /healthz, /readyz and /metrics */
      METRICS_PORT: Joi.number().port().default(9464),
      DB_POOL_SIZE: Joi.number().integer().min(2).max(200).default(10),
      /**
       * Attempts starting at about the same time share one SQL statement; a
       * statement waits up to this long for more to join it. Larger batches
       * cost PostgreSQL less per attempt; an attempt is sent at most this
       * much later.
       */
      EXECUTOR_DB_LINGER_MS: Joi.number().integer().min(0).max(100).default(3),
      /**
       * The same for the statements that record outcomes, which are off the
       * sending path (an attempt leaves its slot once sent): waiting longer
       * makes larger statements, and an attempt's outcome is recorded at
       * most this much later (docs/configuration.md, executor concurrency).
       */
      EXECUTOR_FINISH_LINGER_MS: Joi.number().integer().min(0).max(1000).default(25),
      /**
       * opens the projects' sealed signing secrets (docs/delivery-extras.md);
       * required once any project has one: the executor then refuses to start
       * without it, and never sends unsigned what a policy says to sign
       */
      TTR_SECRET_KEY: secretKey(),
      /** the key before the last key rotation, while secrets sealed with it remain */
      TTR_SECRET_KEY_PREVIOUS: secretKey(),
      /**
       * test-only: the waits before the three retries of a dead-letter
       * notification (docs/delivery-extras.md), in seconds, comma-separated
       */
      TTR_NOTIFY_RETRY_DELAYS_SECONDS: Joi.string()
        .pattern(/^\d{1,4},\d{1,4},\d{1,4}$/)
        .custom((value: string) => value.split(",").map(Number))
        .default([2, 10, 30]),
    }),
    env,
  );
}

/** `10.20.0.0/16, fd00:1::/64` as subnets; empty entries (a trailing comma) are skipped. */
function subnetList(value: string): Subnet[] {
  const subnets: Subnet[] = [];
  for (const entry of value.split(",").map((e) => e.trim())) {
    if (entry === "") continue;
    const subnet = parseSubnet(entry);
    if (subnet === null) throw new Error(`"${entry}" is not a CIDR range such as 10.20.0.0/16, 127.0.0.2/32 or fd00:1::/64`);
    subnets.push(subnet);
  }
  return subnets;
}
