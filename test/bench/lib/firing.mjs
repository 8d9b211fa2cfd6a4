// One firing measurement: triggers planned ahead (due at `T0 + offset(n)`),
// sent by ttr, or by the baseline (BullMQ delayed jobs and a got worker),
// to the recording sink. Returns correctness, lateness, throughput, CPU per
// fire of each stage and the processes' memory at the end.
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { freePort } from "@ttr/platform";
import { LEAD_MS, scheduleThroughApi } from "./api-loader.mjs";
import { cpuMeter, machineCpuMs, serverGroups } from "./procstat.mjs";
import { spawnNode, startTtr, ttrGroups } from "./services.mjs";
import { startSink } from "./sink.mjs";
import { analyzeFiring, secondAfter, sleep } from "./stats.mjs";
import { benchProject, insertTriggers, pool } from "./triggers.mjs";

/**
 * @typedef {object} FiringPlan
 * @property {number} count  triggers 0 … count-1
 * @property {(n: number) => number} offset  ms after T0 (whole seconds) at which trigger n is due
 * @property {number} [holdMs]  how long the sink holds each request
 * @property {number} [sinkSize]  sink slots, if triggers beyond `count` exist (held backlog)
 * @property {string[]} [tags]
 * @property {{rate: number, seconds: number}} [warmup]  an unmeasured load before T0 (to `/w/<n>`), so the
 *   measured window starts with the services in their steady state (JIT, connections, caches)
 * @property {{rate: number}} [throughApi]  schedule the triggers (and the warm-up) through POST /bulk, `rate` per
 *   second, each 2 s before it is due, instead of inserting them by SQL (ttr only)
 * @property {number} [graceMs]  how long past the last due time to wait at most (default 15 min); the wait also
 *   ends when nothing new arrived for 30 s once the last is due
 */

/** CPU µs per fire of each group. */
export function perFire(cpu, fires) {
  const out = {};
  for (const [name, ms] of Object.entries(cpu)) out[name] = fires > 0 ? (ms * 1000) / fires : Number.NaN;
  return out;
}

function memoryOf(procs) {
  const out = {};
  for (const p of procs) {
    const key = p.name.replace(/\d+$/, "");
    const { rss, hwm } = p.memory();
    // Several executors: the largest.
    if (!(key in out) || out[key].rss < rss) out[key] = { rss, hwm };
  }
  return out;
}

async function measure(sink, plan, t0, meter, progress) {
  const lastDue = t0 + Math.max(...sampleOffsets(plan));
  const deadline = lastDue + (plan.graceMs ?? 900_000);
  await sleep(t0 - Date.now());
  await meter.reset();
  const machine0 = machineCpuMs();
  const own0 = process.cpuUsage();
  const wall0 = Date.now();
  let lastLog = 0;
  // Before the last trigger is due a pause in arrivals is expected (held tags, slow starts).
  await sink.waitFor(plan.count, { deadline: lastDue, stallMs: Number.POSITIVE_INFINITY, onTick: tick });
  const complete = await sink.waitFor(plan.count, { deadline, onTick: tick });
  function tick(d) {
    if (progress && Date.now() - lastLog > 15_000) {
      lastLog = Date.now();
      progress(`${d}/${plan.count} arrived`);
    }
  }
  const cpu = await meter.read();
  const wallMs = Date.now() - wall0;
  const own = process.cpuUsage(own0);
  const ours = Object.values(cpu).reduce((a, b) => a + b, 0) + (own.user + own.system) / 1000;
  // CPU used by anything else on the machine meanwhile, in % of one core: noise.
  const otherCpuPct = (100 * (machineCpuMs() - machine0 - ours)) / wallMs;
  // Duplicates, if any, would come right after; give them a moment.
  await sleep(complete ? 1000 : 0);
  const figures = analyzeFiring(sink, { count: plan.count, dueAt: (n) => t0 + plan.offset(n) });
  const span = (figures.lastArrival - t0) / 1000;
  return { complete, ...figures, otherCpuPct, harnessCpuPct: (100 * (own.user + own.system)) / 1000 / wallMs, throughput: span > 0 ? figures.received / span : Number.NaN, cpuPerFireUs: perFire(cpu, figures.received) };
}

/** The plan's warm-up: how many requests, due when (ms after its start), and how long before T0 it starts. */
function warmupOf(plan) {
  if (!plan.warmup) return { count: 0, ms: 0, offset: () => 0 };
  const { rate, seconds } = plan.warmup;
  return { count: rate * seconds, ms: seconds * 1000, offset: (n) => Math.floor(n / rate) * 1000 };
}

/** Offsets are monotonic in n in every plan: the last is the latest. */
function sampleOffsets(plan) {
  return [plan.offset(0), plan.offset(plan.count - 1)];
}

/**
 * ttr: fresh database and prefix, the services as processes, triggers
 * inserted by SQL before they are due.
 * @param {import("./infra.mjs").BenchContext} ctx
 * @param {FiringPlan} plan
 * @param {{services?: object, before?: (env: {db: import("pg").Pool, projectId: string, sink: object, sys: object}) => Promise<void>, after?: (sink: object, result: object) => void, progress?: (m: string) => void}} opts
 */
export async function ttrFiring(ctx, plan, opts = {}) {
  const database = await ctx.database();
  const sink = await startSink(plan.sinkSize ?? plan.count, { holdMs: plan.holdMs ?? 0 });
  const db = pool(database.url);
  let sys = null;
  try {
    const { projectId, apiKey } = await benchProject(database.url);
    sys = await startTtr(database, ctx.redisUrl, opts.services ?? {});
    if (opts.before) await opts.before({ db, projectId, sink, sys });
    const warm = warmupOf(plan);
    let t0;
    let loading = null;
    if (plan.throughApi) {
      t0 = secondAfter(LEAD_MS + 500) + warm.ms;
      loading = scheduleThroughApi({ base: sys.apiBase, apiKey, sinkBase: sink.base, t0, rate: plan.throughApi.rate, seconds: plan.count / plan.throughApi.rate, warm });
    } else {
      t0 = secondAfter(1500 + (plan.count + warm.count) / 30) + warm.ms;
      await insertTriggers(db, projectId, { count: plan.count, sinkBase: sink.base, dueAt: (n) => t0 + plan.offset(n), tags: plan.tags ?? [] });
      if (warm.count > 0) {
        await insertTriggers(db, projectId, { from: 0, count: warm.count, sinkBase: `${sink.base}/w`, dueAt: (n) => t0 - warm.ms + warm.offset(n), tags: plan.tags ?? [], idBase: plan.count + (plan.sinkSize ?? 0) });
      }
      if (Date.now() > t0 - 200) throw new Error(`inserting ${plan.count} triggers took too long: ${Date.now() - t0} ms past T0`);
    }
    const meter = await cpuMeter({ ...ttrGroups(sys), ...serverGroups(db) });
    const [result] = await Promise.all([measure(sink, plan, t0, meter, opts.progress), loading]);
    result.memoryMb = memoryOf(sys.procs);
    result.strays = sink.strays();
    opts.after?.(sink, result);
    if (!result.complete) result.tail = sys.procs.map((p) => `--- ${p.name}\n${p.tail()}`).join("\n");
    return result;
  } finally {
    await sys?.stop();
    await sink.close();
    await db.end();
    await database.drop();
  }
}

const BASELINE_QUEUE = "baseline";

/**
 * The baseline: what a user would build without ttr. BullMQ delayed jobs,
 * one per request, and a worker process sending them with got at the same
 * concurrency as ttr's executor.
 * @param {import("./infra.mjs").BenchContext} ctx
 * @param {FiringPlan} plan
 * @param {{concurrency: number, after?: (sink: object, result: object) => void, progress?: (m: string) => void}} opts
 */
export async function baselineFiring(ctx, plan, opts) {
  const space = await ctx.database();
  const sink = await startSink(plan.count, { holdMs: plan.holdMs ?? 0 });
  const connection = new Redis(ctx.redisUrl, { maxRetriesPerRequest: null });
  const queue = new Queue(BASELINE_QUEUE, { connection, prefix: space.redisPrefix });
  let worker = null;
  try {
    const port = await freePort();
    worker = await spawnNode(
      "baseline",
      "test/bench/baseline-worker.mjs",
      { REDIS_URL: ctx.redisUrl, BASELINE_PREFIX: space.redisPrefix, BASELINE_QUEUE, CONCURRENCY: String(opts.concurrency), PORT: String(port) },
      { port, readyPath: "/ready" },
    );
    // addBulk runs at about 10,000 jobs/s here.
    const warm = warmupOf(plan);
    const t0 = secondAfter(1500 + (plan.count + warm.count) / 6) + warm.ms;
    const add = async (count, path, dueAt) => {
      for (let start = 0; start < count; start += 1000) {
        const jobs = [];
        const now = Date.now();
        for (let n = start; n < Math.min(count, start + 1000); n++) {
          jobs.push({
            name: "send",
            data: { url: `${sink.base}${path}/${n}` },
            opts: { timestamp: now, delay: dueAt(n) - now, attempts: 1, removeOnComplete: true, removeOnFail: 1000 },
          });
        }
        await queue.addBulk(jobs);
      }
    };
    await add(plan.count, "/t", (n) => t0 + plan.offset(n));
    await add(warm.count, "/w", (n) => t0 - warm.ms + warm.offset(n));
    if (Date.now() > t0 - 200) throw new Error(`adding ${plan.count} jobs took too long: ${Date.now() - t0} ms past T0`);
    const meter = await cpuMeter({ worker: [worker.pid], redis: serverGroups(null).redis });
    const result = await measure(sink, plan, t0, meter, opts.progress);
    result.memoryMb = memoryOf([worker]);
    result.strays = sink.strays();
    opts.after?.(sink, result);
    if (!result.complete) result.tail = worker.tail();
    return result;
  } finally {
    await worker?.stop();
    await queue.close();
    connection.disconnect();
    await sink.close();
    await space.drop();
  }
}
