// The attempt queue of a system started by startSystem, for tests that put
// jobs into it by hand (with no scheduler running).
import { ATTEMPT_QUEUE } from "@ttr/core";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import type { System } from "./system.js";

export interface AttemptQueue {
  queue: Queue;
  close(): Promise<void>;
}

export function attemptQueue(sys: System): AttemptQueue {
  const redis = new Redis(sys.env.REDIS_URL as string, { maxRetriesPerRequest: null });
  const queue = new Queue(ATTEMPT_QUEUE, { connection: redis, prefix: sys.env.TTR_REDIS_PREFIX });
  return {
    queue,
    async close() {
      await queue.close();
      redis.disconnect();
    },
  };
}
