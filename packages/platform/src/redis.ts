import { Redis } from "ioredis";
import type { Logger } from "./logger.js";
import { OutageLog } from "./outage.js";
import { type RedisSettings, redisOptions } from "./redis-options.js";

/**
 * A connection usable by BullMQ (no per-command retry limit) and by plain
 * commands, from a URL or from full settings (Sentinels, TLS, a password of
 * its own: redis-options.ts). Its connection errors are logged once per
 * outage (ioredis would otherwise print each one to stderr, outside the JSON
 * log).
 */
export function createRedis(where: string | RedisSettings, name: string, log: Logger): Redis {
  const options = redisOptions(typeof where === "string" ? { url: where } : where);
  // Reconnect at most a second apart (ioredis waits up to 2 s), so work
  // resumes within about a second of Redis answering again. The Sentinels
  // are asked again as often, so a failover is followed as quickly.
  const retryStrategy = (times: number) => Math.min(times * 100, 1000);
  const redis = new Redis({
    ...options,
    maxRetriesPerRequest: null,
    connectionName: name,
    lazyConnect: false,
    retryStrategy,
    ...(options.sentinels ? { sentinelRetryStrategy: retryStrategy } : {}),
  });
  const outage = new OutageLog(log, "redis", { connection: name });
  redis.on("error", (err) => outage.failed(err));
  redis.on("ready", () => outage.recovered());
  return redis;
}

/**
 * Whether Redis answers. While the client is not connected it is not asked:
 * it would queue the command until it reconnects, and the probe would hang.
 */
export async function redisPing(redis: Redis): Promise<boolean> {
  if (redis.status !== "ready") return false;
  return (await redis.ping()) === "PONG";
}

/**
 * Replies of a Redis that cannot take the work now, rather than of a wrong
 * command: out of memory under `noeviction`, a replica (read-only, as after
 * a failover), loading its data after a restart, busy with a script, no
 * reachable master or replicas. Each passes once Redis recovers.
 */
const UNAVAILABLE_REPLIES = /^(OOM|READONLY|LOADING|BUSY|MASTERDOWN|NOREPLICAS|CLUSTERDOWN|TRYAGAIN)\b/;
/** ioredis's and the socket's words for a connection lost or not made. */
const CONNECTION_ERRORS = /Connection is closed|Stream isn't writeable|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|EHOSTUNREACH|ENOTFOUND/;

/** Whether `err` says Redis cannot take work now (an outage), not that a command was wrong. */
export function isRedisUnavailable(err: unknown): boolean {
  const message = err instanceof Error ? err.message : String(err);
  if (UNAVAILABLE_REPLIES.test(message) || CONNECTION_ERRORS.test(message)) return true;
  // a MULTI that Redis discarded (EXECABORT): the reasons are its commands' own
  const previous = (err as { previousErrors?: unknown } | null)?.previousErrors;
  return Array.isArray(previous) && previous.some(isRedisUnavailable);
}
