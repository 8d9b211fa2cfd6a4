import { Redis } from "ioredis";

/** A connection usable by BullMQ (no per-command retry limit) and by plain commands. */
export function createRedis(url: string, name: string): Redis {
  return new Redis(url, { maxRetriesPerRequest: null, connectionName: name, lazyConnect: false });
}

export async function redisPing(redis: Redis): Promise<boolean> {
  return (await redis.ping()) === "PONG";
}
