// /readyz answers within a second whatever the stores do, and says which
// one is down.
import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { EVENT_LOOP_SAMPLE_MS } from "../src/ops.js";
import { createRegistry, freePort, handleOps, READY_TIMEOUT_MS, redisPing, registerStoreProbes } from "../src/index.js";

const registry = createRegistry("test");
const never = () => new Promise<boolean>(() => {});

async function readyz(checks: Record<string, () => Promise<boolean>>) {
  const started = Date.now();
  const out = await handleOps("/readyz", registry, checks);
  return { status: out?.status, body: JSON.parse(out?.body ?? "null"), ms: Date.now() - started };
}

describe("/readyz", () => {
  it("is 200 when every store answers", async () => {
    const r = await readyz({ postgres: async () => true, redis: async () => true });
    expect(r).toMatchObject({ status: 200, body: { status: "ready" } });
  });

  it("is 503 within a second, naming the store that never answers", async () => {
    const r = await readyz({ postgres: async () => true, redis: never });
    expect(r).toMatchObject({ status: 503, body: { status: "unavailable", down: ["redis"] } });
    expect(r.ms).toBeGreaterThanOrEqual(READY_TIMEOUT_MS - 5);
    expect(r.ms).toBeLessThan(1000);
  });

  it("names every store that fails, probed at once", async () => {
    const r = await readyz({ postgres: never, redis: async () => Promise.reject(new Error("ECONNREFUSED")) });
    expect(r).toMatchObject({ status: 503, body: { status: "unavailable", down: ["postgres", "redis"] } });
    expect(r.ms).toBeLessThan(1000);
  });
});

describe("ttr_store_up", () => {
  it("is 1 for each store that answers and 0 for one that fails or never answers, probed at each scrape", async () => {
    const own = createRegistry("probe-test");
    let redisUp = false;
    registerStoreProbes(own, { postgres: async () => true, redis: async () => redisUp, other: never });
    const scrape = async () => (await handleOps("/metrics", own, {}))!.body;
    const first = await scrape();
    expect(first).toContain('ttr_store_up{store="postgres",service="probe-test"} 1');
    expect(first).toContain('ttr_store_up{store="redis",service="probe-test"} 0');
    expect(first).toContain('ttr_store_up{store="other",service="probe-test"} 0');
    redisUp = true;
    expect(await scrape()).toContain('ttr_store_up{store="redis",service="probe-test"} 1');
  });
});

describe("redisPing", () => {
  it("answers false at once while the client cannot connect, instead of queueing the command", async () => {
    const redis = new Redis(`redis://127.0.0.1:${await freePort()}`, { maxRetriesPerRequest: null, lazyConnect: false });
    redis.on("error", () => {});
    try {
      const started = Date.now();
      expect(await redisPing(redis)).toBe(false);
      expect(Date.now() - started).toBeLessThan(100);
    } finally {
      redis.disconnect();
    }
  });
});

describe("default Node.js metrics", () => {
  it("still report the event loop's delay, sampled every EVENT_LOOP_SAMPLE_MS: a loop blocked for 300 ms shows", async () => {
    const own = createRegistry("lag-test");
    await new Promise((r) => setTimeout(r, 3 * EVENT_LOOP_SAMPLE_MS));
    const blockedUntil = Date.now() + 300;
    while (Date.now() < blockedUntil) {
      // the loop is blocked: no sample is taken until this ends
    }
    await new Promise((r) => setTimeout(r, 2 * EVENT_LOOP_SAMPLE_MS));
    const text = await own.metrics();
    const max = Number(/^nodejs_eventloop_lag_max_seconds\{[^}]*\} (\S+)$/m.exec(text)?.[1]);
    expect(max).toBeGreaterThanOrEqual(0.2);
    expect(max).toBeLessThan(5);
  });
});
