// Redis restarted with its data kept on disk (every write appended and
// synced), while the queue holds a backlog (RELIABILITY.md): the queue
// picks up where it was, nothing is sent twice, and the last of the backlog
// goes out within 10 s of Redis answering, oldest due first (but for a job
// taken just as Redis went down, which a copy sends a few seconds later).
import { afterAll, beforeAll, expect, it } from "vitest";
import { backlog, copiesAfterOutage, deliveredOnce, figure, oldestFirst, type Rig, sentSoFar, sleep, startRig, until } from "./rig.js";

let rig: Rig;

beforeAll(async () => {
  rig = await startRig({ redisPersist: true, env: { EXECUTOR_CONCURRENCY: "1" } });
}, 60_000);
afterAll(async () => {
  await rig?.close();
});

it("Redis restarted with persistence, a backlog in the queue: all of it sent once, within 10 s of Redis answering, oldest first", async () => {
  const due = await backlog(rig, "kept");
  await until(() => sentSoFar(rig, "kept") >= 8, 15_000, "the backlog starts draining");
  const waiting = due.size - sentSoFar(rig, "kept");
  await rig.redis.stop();
  await sleep(2000);
  await rig.redis.start();
  const answeringAt = Date.now();
  const arrivals = await deliveredOnce(rig, due, 20_000);
  const last = Math.max(...arrivals);
  expect(last - answeringAt).toBeLessThan(10_000);
  oldestFirst(due, arrivals, copiesAfterOutage(rig, answeringAt));
  figure("Redis restart, persistence", "jobs in the queue when it stopped", waiting, "jobs");
  figure("Redis restart, persistence", "first of them sent after Redis answered", (Math.min(...arrivals.filter((a) => a >= answeringAt)) - answeringAt) / 1000, "s");
  figure("Redis restart, persistence", "last of them sent after Redis answered", (last - answeringAt) / 1000, "s");
}, 60_000);
