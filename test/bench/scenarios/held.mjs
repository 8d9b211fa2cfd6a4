// held: 100,000 due triggers held behind a tag whose policy admits nothing
// (throughput {"1s": 0}) must not slow the others. Triggers of another tag
// due at 200/s for 60 s, once on a clean system and once with the held
// backlog in place (promoted, waiting for admission); their lateness p99
// should stay within 0.5 s of the clean run's.
import { ttrFiring } from "../lib/firing.mjs";
import { sleep } from "../lib/stats.mjs";
import { insertPolicy, insertTriggers } from "../lib/triggers.mjs";
import { steadyPlan } from "./steady.mjs";

export const P99_BUDGET_MS = 500;
export const sizes = {
  full: { held: 100_000, rate: 200, seconds: 60 },
  quick: { held: 2_000, rate: 100, seconds: 4 },
};

function figures(r) {
  return { p50: r.lateness.p50, p99: r.lateness.p99, max: r.lateness.max, early: r.early, missed: r.missed, duplicated: r.duplicated, otherCpuPct: r.otherCpuPct, schedulerUsPerFire: r.cpuPerFireUs.scheduler, postgresUsPerFire: r.cpuPerFireUs.postgres };
}

/**
 * @param {import("../lib/infra.mjs").BenchContext} ctx
 * @param {{quick?: boolean, config: import("../config.mjs").Config, log?: (m: string) => void}} opts
 */
export async function heldOnce(ctx, opts) {
  const size = opts.quick ? sizes.quick : sizes.full;
  const plan = { ...steadyPlan(size.rate, size.seconds), tags: ["other"] };

  opts.log?.(`held: control, ${size.rate}/s for ${size.seconds} s, no backlog`);
  const control = await ttrFiring(ctx, plan, { services: opts.config.services, progress: opts.log });

  opts.log?.(`held: ${size.held} held triggers, then ${size.rate}/s for ${size.seconds} s`);
  let promoteHeldS = Number.NaN;
  let leaked = 0;
  const held = await ttrFiring(ctx, { ...plan, sinkSize: plan.count + size.held }, {
    services: opts.config.services,
    progress: opts.log,
    async before({ db, projectId, sink }) {
      await insertPolicy(db, projectId, "held", { throughput: { "1s": 0 } });
      const started = Date.now();
      const anHourAgo = Math.floor(Date.now() / 1000) * 1000 - 3_600_000;
      await insertTriggers(db, projectId, { from: plan.count, count: size.held, sinkBase: sink.base, dueAt: () => anHourAgo, tags: ["held"] });
      // Held means promoted (queued, attempt planned) and waiting for admission.
      for (;;) {
        const { rows } = await db.query("SELECT count(*)::int AS n FROM executions WHERE status = 'planned'");
        if (rows[0].n >= size.held) break;
        if (Date.now() - started > 600_000) throw new Error(`held backlog not promoted after 600 s (${rows[0].n}/${size.held})`);
        await sleep(500);
      }
      promoteHeldS = (Date.now() - started) / 1000;
      opts.log?.(`  backlog promoted in ${promoteHeldS.toFixed(1)} s`);
    },
    after(sink) {
      for (let n = plan.count; n < plan.count + size.held; n++) leaked += sink.counts[n];
    },
  });
  const c = figures(control);
  const h = figures(held);
  return { control: c, held: h, p99DeltaMs: h.p99 - c.p99, promoteHeldS, heldLeaked: leaked };
}
