import { Redis } from "ioredis";

/** A connection usable by BullMQ (no per-command retry limit) and by plain commands. */
export function createRedis(url: string, name: string): Redis {
  return new Redis(url, { maxRetriesPerRequest: null, connectionName: name, lazyConnect: false });
}

/**
 * Whether Redis answers. While the client is not connected it is not asked:
 * it would queue the command until it reconnects, and the probe would hang.
 */
export async function redisPing(redis: Redis): Promise<boolean> {
  if (redis.status !== "ready") return false;
  return (await redis.ping()) === "PONG";
}
