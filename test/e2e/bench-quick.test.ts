// The bench's firing scenarios at --quick sizes, as a correctness check:
// ttr (steady and burst) and the baseline send every trigger exactly once
// and never before its scheduled second. Timings are not asserted here; the
// full figures come from `npm run bench` (BENCHMARKS.md).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BenchContext, baselineBurstOnce, baselineSteadyOnce, burstOnce, type Firing, openBench, steadyOnce, tuned } from "../bench/quick.mjs";

let ctx: BenchContext;

beforeAll(async () => {
  ctx = await openBench({ pgServerUrl: process.env.TTR_TEST_PG_SERVER, redisUrl: process.env.REDIS_URL });
});
afterAll(async () => {
  await ctx?.close();
});

function expectExactlyOnce(r: Firing): void {
  expect(r.tail ?? "", "every trigger arrived").toBe("");
  expect(r.complete).toBe(true);
  expect({ early: r.early, missed: r.missed, duplicated: r.duplicated, strays: r.strays, received: r.received }).toEqual({
    early: 0,
    missed: 0,
    duplicated: 0,
    strays: 0,
    received: r.count,
  });
}

const quick = { quick: true, config: tuned };

describe("bench --quick: none early, missed or doubled", () => {
  it("steady: triggers due at a fixed rate", async () => {
    for (const r of Object.values(await steadyOnce(ctx, quick))) expectExactlyOnce(r);
  }, 60_000);

  it("burst: triggers due in the same second, oldest first", async () => {
    const r = await burstOnce(ctx, quick);
    expectExactlyOnce(r);
    // Attempts run concurrently, so arrivals may trade places within what is in flight, not more.
    expect(r.order.max).toBeLessThanOrEqual(tuned.concurrency * 2 + 500);
  }, 60_000);

  it("baseline: BullMQ delayed jobs and a got worker, same loads", async () => {
    for (const r of Object.values(await baselineSteadyOnce(ctx, quick))) expectExactlyOnce(r);
    expectExactlyOnce(await baselineBurstOnce(ctx, quick));
  }, 60_000);
});
