// Lost queue work (recover.ts) against a real PostgreSQL and Redis: after the
// queue's data goes, what it should hold is added back oldest due first,
// even when a tick has already put later jobs into the emptied queue.
import { randomUUID } from "node:crypto";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ATTEMPT_QUEUE } from "@ttr/core";
import { createDb, createPgRunner, createProject, type Db, type PgRunner, promoteDue } from "@ttr/db";
import { createLogger } from "@ttr/platform";
import { freshDatabase, redisPrefix, redisUrl, type TestDatabase } from "../../../test/support/db.js";
import { enqueue } from "../src/dispatch.js";
import { loadEnv } from "../src/env.js";
import { QueueRecovery } from "../src/recover.js";

let tdb: TestDatabase;
let db: Db;
let pool: PgRunner;
let redis: Redis;
let queue: Queue;
let recovery: QueueRecovery;
const prefix = redisPrefix();

beforeAll(async () => {
  tdb = await freshDatabase();
  db = createDb(tdb.url, { max: 2 });
  pool = createPgRunner(tdb.url, { max: 2 });
  redis = new Redis(redisUrl(), { maxRetriesPerRequest: null });
  queue = new Queue(ATTEMPT_QUEUE, { connection: redis, prefix });
  const env = loadEnv({ DATABASE_URL: tdb.url, REDIS_URL: redisUrl(), TTR_REDIS_PREFIX: prefix });
  const deps = { env, db: pool, queue, redis, log: createLogger("scheduler", "warn"), lease: { held: () => true } };
  recovery = new QueueRecovery(deps as unknown as ConstructorParameters<typeof QueueRecovery>[0]);
});

afterAll(async () => {
  await dropPrefix();
  await queue?.close();
  redis?.disconnect();
  await pool?.end();
  await db?.$disconnect();
  await tdb?.drop();
});

/** What FLUSHALL does to this test's keys (the machine's Redis is shared: only ours go). */
async function dropPrefix(): Promise<void> {
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
}

/** `count` untagged triggers due one second apart, oldest first, promoted (and so dispatched). */
async function dispatched(count: number) {
  const { projectId } = await createProject(db, "recover", 1000);
  for (let i = 0; i < count; i++) {
    await db.$executeRawUnsafe(
      `INSERT INTO triggers (id, project_id, status, url, method, headers, tags, scheduled_at, part_day)
       VALUES ($1::uuid, $2::uuid, 'registered', 'http://127.0.0.1:9/x', 'POST', '[]'::jsonb, '{}'::text[],
               now() - make_interval(secs => $3::int), (now() AT TIME ZONE 'UTC')::date)`,
      randomUUID(),
      projectId,
      count - i + 60,
    );
  }
  const promoted = await promoteDue(pool, new Date(), count);
  expect(promoted.every((p) => p.dispatched)).toBe(true);
  return promoted;
}

it("after the queue's data went, the lost jobs go back ahead of later ones a tick added meanwhile", async () => {
  const attempts = await dispatched(12);
  const oldestFirst = attempts.map((a) => a.executionId);
  // The scheduler's first check sees an empty queue and fills it.
  expect(await recovery.run(new Date())).toBe(12);
  expect(await queue.getRanges(["wait"], 0, -1, true)).toEqual(oldestFirst);

  // Redis loses its data; before the next check, a tick dispatches the
  // four due last into the emptied queue.
  await dropPrefix();
  await enqueue({ queue }, attempts.slice(8));
  expect(await queue.getRanges(["wait"], 0, -1, true)).toEqual(oldestFirst.slice(8));

  expect(await recovery.run(new Date(Date.now() + 1))).toBe(12);
  // Executors take jobs oldest first: in due order again, each once.
  expect(await queue.getRanges(["wait"], 0, -1, true)).toEqual(oldestFirst);

  // Nothing lost since: the next check adds nothing and moves nothing.
  expect(await recovery.run(new Date(Date.now() + 2))).toBe(0);
  expect(await queue.getRanges(["wait"], 0, -1, true)).toEqual(oldestFirst);
});
