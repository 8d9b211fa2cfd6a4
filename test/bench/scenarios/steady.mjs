// steady: triggers due at a fixed rate (500, 1,000 and 2,000 per second)
// for 60 s each, planned ahead by SQL. Fire lateness (arrival minus the
// scheduled second), early, missed and duplicated firings, CPU per fire of
// each stage, and the memory of each service at the end.
import { baselineFiring, ttrFiring } from "../lib/firing.mjs";

export const sizes = {
  full: { rates: [500, 1000, 2000], seconds: 60 },
  quick: { rates: [100], seconds: 3 },
};

/** `rate` triggers due at each second for `seconds`, after an unmeasured 5-second warm-up at the same rate. */
export function steadyPlan(rate, seconds) {
  return { count: rate * seconds, offset: (n) => Math.floor(n / rate) * 1000, warmup: { rate, seconds: 5 } };
}

/**
 * One run of every rate against ttr.
 * @param {import("../lib/infra.mjs").BenchContext} ctx
 * @param {{quick?: boolean, config: import("../config.mjs").Config, rates?: number[], seconds?: number, log?: (m: string) => void}} opts
 */
export async function steadyOnce(ctx, opts) {
  const size = opts.quick ? sizes.quick : sizes.full;
  const out = {};
  for (const rate of opts.rates ?? size.rates) {
    opts.log?.(`steady ${rate}/s: ${opts.seconds ?? size.seconds} s`);
    out[rate] = await ttrFiring(ctx, steadyPlan(rate, opts.seconds ?? size.seconds), { services: opts.config.services, progress: opts.log });
  }
  return out;
}

/** The same load through the baseline. */
export async function baselineSteadyOnce(ctx, opts) {
  const size = opts.quick ? sizes.quick : sizes.full;
  const out = {};
  for (const rate of opts.rates ?? size.rates) {
    opts.log?.(`baseline steady ${rate}/s: ${opts.seconds ?? size.seconds} s`);
    out[rate] = await baselineFiring(ctx, steadyPlan(rate, opts.seconds ?? size.seconds), { concurrency: opts.config.concurrency, progress: opts.log });
  }
  return out;
}

/**
 * The steady load scheduled through the api (POST /bulk each second, 2 s
 * ahead) instead of SQL, so that storing the triggers is inside the CPU per
 * fire: what a deployment pays for each request it is asked to send.
 */
export async function throughApiOnce(ctx, opts) {
  const size = opts.quick ? sizes.quick : sizes.full;
  const out = {};
  for (const rate of opts.rates ?? [1000, 2000]) {
    const seconds = opts.seconds ?? (opts.quick ? size.seconds : 30);
    opts.log?.(`through the api ${rate}/s: ${seconds} s`);
    out[rate] = await ttrFiring(ctx, { ...steadyPlan(rate, seconds), throughApi: { rate } }, { services: opts.config.services, progress: opts.log });
  }
  return out;
}
