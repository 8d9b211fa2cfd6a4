// The scenario list: each entry runs one repetition and returns its figures.
import { defaults, tuned } from "../config.mjs";
import { apiOnce } from "./api.mjs";
import { baselineBurstOnce, burstOnce } from "./burst.mjs";
import { declareOnce } from "./declare.mjs";
import { heldOnce } from "./held.mjs";
import { largeStateOnce, largeStateSizes } from "./large-state.mjs";
import { pgCost } from "../pg-cost.mjs";
import { scaleOnce } from "./scale.mjs";
import { baselineSteadyOnce, steadyOnce, throughApiOnce } from "./steady.mjs";

/**
 * @typedef {object} Scenario
 * @property {string} summary
 * @property {import("../config.mjs").Config} config
 * @property {number} [runs]  repetitions (default: the run's --runs)
 * @property {(ctx: import("../lib/infra.mjs").BenchContext, opts: {quick: boolean, config: import("../config.mjs").Config, log: (m: string) => void}) => Promise<object>} once
 */

const large = largeStateSizes();
const n = (x) => x.toLocaleString("en-US");

/** @type {Record<string, Scenario>} */
export const scenarios = {
  baseline: {
    summary: "BullMQ delayed jobs + a got worker at concurrency 100: steady 500/1,000/2,000 per s and a 50,000 burst",
    // a hand-built setup as people write it: got at concurrency 100 (ttr's executor
    // default was 100 too until 2026-11-26; it is 200 since, see docs/configuration.md)
    config: defaults,
    once: async (ctx, opts) => ({ steady: await baselineSteadyOnce(ctx, opts), burst: await baselineBurstOnce(ctx, opts) }),
  },
  steady: { summary: "triggers due at 500, 1,000 and 2,000 per s for 60 s each", config: tuned, once: steadyOnce },
  burst: { summary: "50,000 triggers due in the same second", config: tuned, once: burstOnce },
  api: { summary: "/schedule at fixed rates (autocannon -R) vs a bare express 5 handler doing one INSERT", config: tuned, once: apiOnce },
  scale: { summary: "1, 2 and 4 executors against a sink that holds each request 200 ms", config: tuned, once: scaleOnce },
  declare: { summary: "/declare of 10,000 keyed items (added, unchanged, 1% changed) and /bulk of 10,000 upserts", config: tuned, once: declareOnce },
  held: { summary: "100,000 triggers held at rate 0 must not slow other tags at 200/s", config: tuned, once: heldOnce },
  "large-state": {
    summary: `an empty database vs one holding ${n(large.pending)} pending one-shots and ${n(large.history)} completed ones with their executions (TTR_BENCH_PENDING, TTR_BENCH_HISTORY; --quick: 20,000 and 200,000): steady 300 and 1,000/s for ${large.seconds} s, ${large.windowsPerRate} windows of each on each database, interleaved (empty, large, large, empty), scheduler ticks, bytes and WAL per fire, /schedule at ${large.scheduleRate}/s, dashboard reads, API-key operations, and a retention pass over ${n(large.retention)} rows 38 to 31 days old (TTR_BENCH_RETENTION) during 300/s, beside 300/s right before it (one run)`,
    // what an operator gets without tuning anything
    config: defaults,
    runs: 1,
    once: largeStateOnce,
  },
  pg: {
    summary: "PostgreSQL CPU, wall time and WAL per trigger of each firing statement, run by hand on one connection",
    config: tuned,
    once: async (ctx, opts) => Object.fromEntries((await pgCost(ctx, opts.quick ? 600 : 6000)).map((r) => [r.label, { cpuUs: r.cpuUs, wallUs: r.wallUs, walKiB: r.walBytes / 1024 }])),
  },
  "through-api": {
    summary: "1,000 and 2,000 per s for 30 s each, every trigger scheduled through POST /bulk 2 s before it is due, all defaults (one run)",
    config: defaults,
    runs: 1,
    once: throughApiOnce,
  },
  defaults: {
    summary: "steady and burst again with every setting at its default (one run)",
    config: defaults,
    runs: 1,
    once: async (ctx, opts) => ({ steady: await steadyOnce(ctx, opts), burst: await burstOnce(ctx, opts) }),
  },
};
