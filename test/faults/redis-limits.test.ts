// Tag-policy limits when Redis loses its data (FLUSHALL; a restart without
// persistence is the same). Admission keeps its state in Redis: the
// attempts holding a tag's slots and its recent starts. Once the scheduler
// sees the data gone, it puts that state back from PostgreSQL before it
// admits anything again, so a flush lets no more through than the limits
// allow (docs/api/tag-policies.md, when Redis loses its data).
import { Redis } from "ioredis";
import { expect, it } from "vitest";
import { executionsOf } from "../support/rows.js";
import { sleep, useRig } from "./rig.js";

// two executors: one alone, sending one attempt at a time, would keep a concurrency of 1 by itself
const rig = useRig({ redisPersist: false, executors: 2 });

async function policy(body: Record<string, unknown>): Promise<void> {
  const res = await rig().call("POST", "/tag-policies", { "Content-Type": "application/json", "ttr-api-key": rig().apiKey }, JSON.stringify(body));
  expect(res.status, res.text).toBe(200);
}

async function schedule(path: string, tag: string): Promise<string> {
  const res = await rig().call("POST", "/schedule", { "ttr-api-key": rig().apiKey, "ttr-url": `${rig().target.base}${path}`, "ttr-scheduled-at": "now", "ttr-tags": tag });
  expect(res.status, res.text).toBe(200);
  return (res.json() as { triggerId: string }).triggerId;
}

/** Long enough for the scheduler to see the data gone and to admit what it would (it ticks every second). */
const AFTER_FLUSH_MS = 4000;

it("throughput {1h: 1}: a trigger held before the flush is still held after it; the start that fills the hour is read back", async () => {
  const { target } = rig();
  await policy({ tag: "hourly", throughput: { "1h": 1 } });
  const first = await schedule("/hourly", "hourly");
  await target.waitFor("/hourly", 1, 5000);
  await schedule("/hourly", "hourly");
  await sleep(1500);
  expect(target.hits("/hourly")).toHaveLength(1);

  await rig().redis.flushAll();
  await sleep(AFTER_FLUSH_MS);
  expect(target.hits("/hourly"), "held back after the flush too").toHaveLength(1);
  const [sent] = await executionsOf(rig().db, first);
  const redis = new Redis(rig().redis.url);
  try {
    // the rig's services use the prefix "ttr"
    const logged = await redis.zscore(`ttr:adm:${rig().projectId}:hourly:log`, sent!.id);
    expect(Number(logged)).toBe(sent!.startedAt!.getTime());
  } finally {
    redis.disconnect();
  }
}, 30_000);

it("maxConcurrent 1: the attempt in flight during the flush keeps its slot; the next starts only once it ended", async () => {
  const { target } = rig();
  await policy({ tag: "one", maxConcurrent: 1 });
  let inFlight = 0;
  let peak = 0;
  target.on("/one", (_req, res) => {
    inFlight++;
    peak = Math.max(peak, inFlight);
    setTimeout(() => {
      inFlight--;
      res.writeHead(200).end();
    }, 6000);
  });
  await schedule("/one", "one");
  const [first] = await target.waitFor("/one", 1, 5000);
  await schedule("/one", "one");
  await sleep(1000);

  await rig().redis.flushAll();
  await sleep(AFTER_FLUSH_MS);
  expect(target.hits("/one"), "still one in flight").toHaveLength(1);
  const [, second] = await target.waitFor("/one", 2, 10_000);
  expect(second!.at - first!.at, "the second starts after the first ended").toBeGreaterThanOrEqual(6000);
  expect(peak).toBe(1);
}, 40_000);
