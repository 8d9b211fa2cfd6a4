// Lost queue work (recover.ts) against a real PostgreSQL and Redis: after the
// queue's data goes, what it should hold is added back oldest due first,
// even when a tick has already put later jobs into the emptied queue; and
// attempts whose job is gone are sent again (requeueLost), those a live
// job carries are not.
import { randomUUID } from "node:crypto";
import { Queue, Worker } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { ATTEMPT_QUEUE, attemptsOfJob } from "@ttr/core";
import { createDb, createPgRunner, createProject, type Db, type PgRunner, promoteDue } from "@ttr/db";
import { createLogger } from "@ttr/platform";
import { freshDatabase, redisPrefix, redisUrl, type TestDatabase } from "../../../test/support/db.js";
import { PolicyAdmission } from "../src/admit.js";
import { attemptsInQueue, enqueue, requeueLost } from "../src/dispatch.js";
import { loadEnv } from "../src/env.js";
import { QueueRecovery } from "../src/recover.js";

let tdb: TestDatabase;
let db: Db;
let pool: PgRunner;
let redis: Redis;
let queue: Queue;
let recovery: QueueRecovery;
let deps: Parameters<typeof requeueLost>[0];
const requeued: number[] = [];
const prefix = redisPrefix();

beforeAll(async () => {
  tdb = await freshDatabase();
  db = createDb(tdb.url, { max: 2 });
  pool = createPgRunner(tdb.url, { max: 2 });
  redis = new Redis(redisUrl(), { maxRetriesPerRequest: null });
  queue = new Queue(ATTEMPT_QUEUE, { connection: redis, prefix });
  const env = loadEnv({ DATABASE_URL: tdb.url, REDIS_URL: redisUrl(), TTR_REDIS_PREFIX: prefix });
  const metrics = { requeued: { inc: (n: number) => requeued.push(n) } };
  // the project has no tag policies: restoring the limits' state after a loss finds nothing to put back
  const admission = new PolicyAdmission(pool, redis, prefix);
  deps = { env, db: pool, queue, redis, log: createLogger("scheduler", "warn"), lease: { held: () => true }, metrics, admission } as unknown as typeof deps;
  recovery = new QueueRecovery(deps);
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

/** The attempts the waiting jobs carry, in the order executors take them. */
async function waiting(): Promise<string[]> {
  const jobs = await queue.getJobs(["waiting"], 0, -1, true);
  return jobs.flatMap((job) => attemptsOfJob(job.data).map((a) => a.executionId));
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
  expect(await waiting()).toEqual(oldestFirst);
  // twelve dispatched together travel in one job
  expect(await queue.getJobCountByTypes("wait")).toBe(1);

  // Redis loses its data; before the next check, a tick dispatches the
  // four due last into the emptied queue.
  await dropPrefix();
  await enqueue({ queue }, attempts.slice(8));
  expect(await waiting()).toEqual(oldestFirst.slice(8));

  expect(await recovery.run(new Date(Date.now() + 1))).toBe(12);
  // Executors take jobs oldest first: in due order again, each once.
  expect(await waiting()).toEqual(oldestFirst);

  // Nothing lost since: the next check adds nothing and moves nothing.
  expect(await recovery.run(new Date(Date.now() + 2))).toBe(0);
  expect(await waiting()).toEqual(oldestFirst);

  // Asked to check although nothing was lost (a takeover, say): what the
  // jobs carry is known, and none is added twice.
  recovery.request("a test asks");
  expect(await recovery.run(new Date(Date.now() + 3))).toBe(0);
  expect(await waiting()).toEqual(oldestFirst);
});

it("a stale attempt a live job carries stays; one whose job failed or vanished is added again, once", async () => {
  await dropPrefix();
  // the attempts of the test before are out of the way
  await db.$executeRawUnsafe(`UPDATE triggers SET status = 'cancelled' WHERE status = 'queued'`);
  const attempts = await dispatched(6);
  const ids = attempts.map((a) => a.executionId);
  // The 4th and 5th travel in a job that failed (its executor threw)...
  await enqueue({ queue }, attempts.slice(3, 5));
  const connection = new Redis(redisUrl(), { maxRetriesPerRequest: null });
  const failing = new Worker(ATTEMPT_QUEUE, async () => Promise.reject(new Error("executor broke")), { connection, prefix, skipVersionCheck: true });
  await vi.waitFor(async () => expect(await queue.getJobCountByTypes("failed")).toBe(1), { timeout: 5000 });
  await failing.close();
  connection.disconnect();
  // ...the first three in one still waiting, and the job of the 6th is gone.
  await enqueue({ queue }, attempts.slice(0, 3));
  expect([...(await attemptsInQueue({ queue, redis })).keys()]).toEqual(ids.slice(0, 3));

  requeued.length = 0;
  const dispatchedBefore = new Date(Date.now() + 60_000); // every attempt counts as stale
  expect(await requeueLost(deps, dispatchedBefore, new Date(0))).toBe(3);
  expect(await waiting()).toEqual(ids);
  // now that each is in a live job, nothing more
  expect(await requeueLost(deps, dispatchedBefore, new Date(0))).toBe(0);
  expect(requeued).toEqual([3, 0]);
});

it("reading what the queue carries stops once it found the attempts asked for", async () => {
  await dropPrefix();
  const refs = Array.from({ length: 6000 }, () => ({ executionId: randomUUID(), partDay: "2026-11-27" }));
  await enqueue({ queue }, refs); // 300 jobs of 20
  const all = await attemptsInQueue({ queue, redis });
  expect(all.size).toBe(6000);
  expect(all.get(refs[0]!.executionId)).toEqual({ state: "waiting", processedOn: undefined });
  // the three oldest are in the first page of jobs read: the rest is not read
  const some = await attemptsInQueue({ queue, redis }, new Set(refs.slice(0, 3).map((r) => r.executionId)));
  expect(refs.slice(0, 3).every((r) => some.has(r.executionId))).toBe(true);
  expect(some.size).toBeLessThan(6000);
  await dropPrefix();
});

it("an attempt a taken job has not started gets one copy beside it, not one per sweep", async () => {
  await dropPrefix();
  await db.$executeRawUnsafe(`UPDATE triggers SET status = 'cancelled' WHERE status = 'queued'`);
  const attempts = await dispatched(3);
  await enqueue({ queue }, attempts);
  // an executor takes the job and never starts its attempts (all its slots busy, or it died)
  const connection = new Redis(redisUrl(), { maxRetriesPerRequest: null });
  const holder = new Worker(ATTEMPT_QUEUE, () => new Promise(() => {}), { connection, prefix, skipVersionCheck: true });
  await vi.waitFor(async () => expect(await queue.getJobCountByTypes("active")).toBe(1), { timeout: 5000 });
  const later = new Date(Date.now() + 60_000); // stale, and taken long enough ago
  expect(await requeueLost(deps, later, later)).toBe(3);
  const copies = await queue.getJobs(["waiting"], 0, -1, true);
  expect(copies.map((j) => j.id)).toEqual(attempts.map((a) => `${a.executionId}-again`));
  // the copies wait: the next sweeps add nothing
  expect(await requeueLost(deps, later, later)).toBe(0);
  expect(await requeueLost(deps, later, later)).toBe(0);
  expect(await queue.getJobCountByTypes("waiting")).toBe(3);
  await holder.close(true);
  connection.disconnect();
  await dropPrefix();
});

it("a restore of the tag limits that failed is tried again at the next check, though the queue's marker is back", async () => {
  await dropPrefix();
  let calls = 0;
  const flaky = { restore: async () => {
    calls++;
    if (calls === 1) throw new Error("statement timeout");
  } };
  const once = new QueueRecovery({ ...deps, admission: flaky } as unknown as typeof deps);
  await expect(once.run(new Date())).rejects.toThrow("statement timeout");
  // the marker was set before the restore failed: the data is not "gone" any more
  await once.run(new Date(Date.now() + 1));
  expect(calls).toBe(2);
  await once.run(new Date(Date.now() + 2));
  expect(calls).toBe(2);
});
