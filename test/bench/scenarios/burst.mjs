// burst: 50,000 triggers due in the same second. Time until the last one
// arrives, lateness percentiles, drain rate, and whether oldest-first order
// held (the triggers' ids follow their number, so claim order is n order).
import { baselineFiring, ttrFiring } from "../lib/firing.mjs";
import { orderDisplacement } from "../lib/stats.mjs";

export const sizes = { full: { count: 50_000 }, quick: { count: 1_000 } };

function plan(count) {
  return { count, offset: () => 0, graceMs: 900_000 };
}

function drained(result, count, ordered) {
  const drainS = result.complete ? result.lateness.max / 1000 : Number.NaN;
  return { ...result, drainS, firesPerS: count / drainS, ...(ordered ? { order: ordered } : {}) };
}

/**
 * @param {import("../lib/infra.mjs").BenchContext} ctx
 * @param {{quick?: boolean, config: import("../config.mjs").Config, count?: number, log?: (m: string) => void}} opts
 */
export async function burstOnce(ctx, opts) {
  const count = opts.count ?? (opts.quick ? sizes.quick : sizes.full).count;
  opts.log?.(`burst: ${count} due at once`);
  let order = null;
  const result = await ttrFiring(ctx, plan(count), {
    services: opts.config.services,
    progress: opts.log,
    // Read before the sink closes.
    after: (sink) => {
      order = orderDisplacement(sink, { count });
    },
  });
  return drained(result, count, order);
}

export async function baselineBurstOnce(ctx, opts) {
  const count = opts.count ?? (opts.quick ? sizes.quick : sizes.full).count;
  opts.log?.(`baseline burst: ${count} due at once`);
  let order = null;
  const result = await baselineFiring(ctx, plan(count), {
    concurrency: opts.config.concurrency,
    progress: opts.log,
    after: (sink) => {
      order = orderDisplacement(sink, { count });
    },
  });
  return drained(result, count, order);
}
