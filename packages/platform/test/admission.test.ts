// Tag-policy admission on a real Redis (docs/api/tag-policies.md,
// throughput): what the admission script lets through, and what an attempt
// that was admitted but never sent leaves behind.
import { Redis } from "ioredis";
import { afterAll, beforeAll, expect, it } from "vitest";
import { redisPrefix, redisUrl } from "../../../test/support/db.js";
import { admit, DEFAULT_LOG_CAP, markDropped, markEnded, markStarted, type TagLimit } from "../src/index.js";

let redis: Redis;
const prefix = redisPrefix();
beforeAll(() => {
  redis = new Redis(redisUrl(), { maxRetriesPerRequest: 1 });
});
afterAll(async () => {
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

const HOUR = 3_600_000;
const candidates = (project: string, tag: string, from: number, n: number) =>
  Array.from({ length: n }, (_, i) => ({ executionId: `${tag}-${from + i}`, projectId: project, tags: [tag] }));

it(`a rate above ${DEFAULT_LOG_CAP} per window lets exactly that many start in the window, no more`, async () => {
  const rate = DEFAULT_LOG_CAP + 50;
  const limits = new Map<string, TagLimit>([["p1:big", { max: null, windows: [[HOUR, rate]] }]]);
  const now = Date.now();
  let admitted = 0;
  // in batches, as the scheduler asks, a millisecond apart
  for (let batch = 0; batch < 14; batch++) {
    const out = await admit(redis, prefix, limits, candidates("p1", "big", batch * 100, 100), now + batch);
    admitted += out.admitted.length;
  }
  expect(admitted).toBe(rate);
  // an hour after the first start, room again
  const later = await admit(redis, prefix, limits, candidates("p1", "big", 5000, 10), now + HOUR + 20);
  expect(later.admitted.length).toBe(10);
});

it("an attempt admitted and then dropped unsent does not count toward throughput; one that started and ended does", async () => {
  const limits = new Map<string, TagLimit>([["p2:slow", { max: null, windows: [[60_000, 1]] }]]);
  const now = Date.now();
  const [first] = (await admit(redis, prefix, limits, candidates("p2", "slow", 0, 1), now)).admitted;
  expect(first).toBe("slow-0");
  expect((await admit(redis, prefix, limits, candidates("p2", "slow", 1, 1), now + 10)).admitted).toEqual([]);

  // cancelled before the executor sent it: the window is free again
  await markDropped(redis, prefix, "p2", ["slow"], "slow-0");
  expect((await admit(redis, prefix, limits, candidates("p2", "slow", 2, 1), now + 20)).admitted).toEqual(["slow-2"]);

  // sent and ended: its start still fills the window
  await markStarted(redis, prefix, "p2", ["slow"], "slow-2", now + 30);
  await markEnded(redis, prefix, "p2", ["slow"], "slow-2");
  expect((await admit(redis, prefix, limits, candidates("p2", "slow", 3, 1), now + 40)).admitted).toEqual([]);
  expect((await admit(redis, prefix, limits, candidates("p2", "slow", 4, 1), now + 30 + 60_000)).admitted).toEqual(["slow-4"]);
});

it("a rate too large for any log to reach (1e17, 1e300) holds nothing back, and the batch's other tags are admitted as usual", async () => {
  const limits = new Map<string, TagLimit>([
    ["p3:huge", { max: null, windows: [[1000, 1e17]] }],
    ["p3:vast", { max: null, windows: [[HOUR, 1e300], [1000, 5e9]] }],
    ["p3:one", { max: null, windows: [[HOUR, 1]] }],
  ]);
  const now = Date.now();
  const batch = [...candidates("p3", "huge", 0, 3), ...candidates("p3", "vast", 0, 3), ...candidates("p3", "one", 0, 2)];
  const out = await admit(redis, prefix, limits, batch, now);
  expect(out.admitted).toEqual(["huge-0", "huge-1", "huge-2", "vast-0", "vast-1", "vast-2", "one-0"]);
  expect((await admit(redis, prefix, limits, candidates("p3", "huge", 3, 2), now + 1)).admitted).toEqual(["huge-3", "huge-4"]);
});
