// scale: 1, 2 and 4 executor processes against a sink that holds every
// request 200 ms, so each executor is bound by its concurrency, not its CPU,
// until the machine runs out of cores. Fires/s of the sustained part of the
// drain, and its ratio to one executor.
import { ttrFiring } from "../lib/firing.mjs";
import { sustainedRate } from "../lib/stats.mjs";

export const HOLD_MS = 200;
export const sizes = {
  full: { executors: [1, 2, 4], seconds: 20 },
  quick: { executors: [1, 2], seconds: 3 },
};

/**
 * Concurrency is the default 50 here whatever the config: 50 / 0.2 s = 250
 * fires/s per executor at most, so 4 executors (1,000/s) stay within what 2
 * cores can drive and the figure measures scaling, not CPU.
 * @param {import("../lib/infra.mjs").BenchContext} ctx
 * @param {{quick?: boolean, config: import("../config.mjs").Config, log?: (m: string) => void}} opts
 */
export async function scaleOnce(ctx, opts) {
  const size = opts.quick ? sizes.quick : sizes.full;
  const concurrency = 50;
  const out = {};
  for (const executors of size.executors) {
    const count = Math.round((concurrency / (HOLD_MS / 1000)) * executors * size.seconds);
    opts.log?.(`scale: ${executors} executor(s), ${count} triggers due at once`);
    let rate = Number.NaN;
    const services = {
      ...opts.config.services,
      executors,
      executorEnv: { ...opts.config.services.executorEnv, EXECUTOR_CONCURRENCY: String(concurrency) },
    };
    const result = await ttrFiring(ctx, { count, offset: () => 0, holdMs: HOLD_MS, graceMs: 900_000 }, {
      services,
      progress: opts.log,
      after: (sink) => {
        rate = sustainedRate(sink, { count });
      },
    });
    out[executors] = { firesPerS: rate, complete: result.complete, early: result.early, missed: result.missed, duplicated: result.duplicated, otherCpuPct: result.otherCpuPct };
  }
  for (const r of Object.values(out)) r.ratio = r.firesPerS / out[size.executors[0]].firesPerS;
  return out;
}
