// How many due triggers each statement of a tick claims (docs/configuration.md,
// SCHEDULER_BATCH_SIZE): the first batch is the setting, 100 by default, and
// full batches double the next up to ten times the setting, never past 10,000;
// and the threshold past which a tick logs its steps.
import { describe, expect, it } from "vitest";
import { loadEnv } from "../src/env.js";
import { batchLimits } from "../src/loop.js";

const env = { DATABASE_URL: "postgresql://127.0.0.1/ttr", REDIS_URL: "redis://127.0.0.1:6379" };

describe("SCHEDULER_BATCH_SIZE", () => {
  it("defaults to 100", () => {
    expect(loadEnv(env).SCHEDULER_BATCH_SIZE).toBe(100);
  });

  it("is the first batch of a tick; doubling reaches ten times it, at most 10,000", () => {
    expect(batchLimits(100)).toEqual({ first: 100, largest: 1000 });
    expect(batchLimits(1)).toEqual({ first: 1, largest: 10 });
    expect(batchLimits(500)).toEqual({ first: 500, largest: 5000 });
    expect(batchLimits(5000)).toEqual({ first: 5000, largest: 10_000 });
    expect(batchLimits(10_000)).toEqual({ first: 10_000, largest: 10_000 });
  });

  it("refuses values outside 1 to 10,000", () => {
    expect(() => loadEnv({ ...env, SCHEDULER_BATCH_SIZE: "0" })).toThrow(/SCHEDULER_BATCH_SIZE/);
    expect(() => loadEnv({ ...env, SCHEDULER_BATCH_SIZE: "10001" })).toThrow(/SCHEDULER_BATCH_SIZE/);
  });
});

describe("SCHEDULER_SLOW_TICK_MS", () => {
  it("is half the tick interval unless set", () => {
    expect(loadEnv(env).SCHEDULER_SLOW_TICK_MS).toBe(500);
    expect(loadEnv({ ...env, SCHEDULER_TICK_MS: "250" }).SCHEDULER_SLOW_TICK_MS).toBe(125);
    expect(loadEnv({ ...env, SCHEDULER_SLOW_TICK_MS: "200" }).SCHEDULER_SLOW_TICK_MS).toBe(200);
    expect(() => loadEnv({ ...env, SCHEDULER_SLOW_TICK_MS: "0" })).toThrow(/SCHEDULER_SLOW_TICK_MS/);
  });
});
