// What the test suite takes from the bench (test/e2e/bench-quick.test.ts):
// the firing scenarios, run at their --quick sizes. Types in quick.d.mts.
export { tuned } from "./config.mjs";
export { openBench } from "./lib/infra.mjs";
export { baselineBurstOnce, burstOnce } from "./scenarios/burst.mjs";
export { baselineSteadyOnce, steadyOnce } from "./scenarios/steady.mjs";
