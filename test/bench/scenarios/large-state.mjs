// large-state: what a big database costs. The same measurements, in one run,
// on two states side by side: an empty database, and a large one
// (TTR_BENCH_PENDING pending one-shots due over the next 30 days and
// TTR_BENCH_HISTORY completed one-shots with one execution each over the
// past 25 days, half in the firing project and half in another; seeded by
// lib/large-state-seed.mjs). On each state, with the services as
// configured (defaults, see scenarios/index.mjs):
// - steady firing at 300 and 1,000 per s: lateness, early / missed /
//   doubled, and the scheduler's tick durations over the window (its
//   ttr_scheduler_tick_duration_seconds histogram, scraped before and after);
//   each window follows an unmeasured warm-up at its rate, 15 s for the
//   first one after the services start (5 s for the others);
// - blocks read from outside shared buffers per fire, and the time spent
//   reading them (lib/pg-io.mjs);
// - live bytes (triggers and executions partitions with their indexes and
//   TOAST, after VACUUM) and WAL written per fired one-shot, around the
//   300/s window; WAL is counted server-wide, so it is an upper bound when
//   anything else runs on the server;
// - POST /schedule latency at a fixed 200 req/s (autocannon, as api.mjs);
// - the dashboard's reads through a signed-in session, and operations with
//   the API key (cancel by id, by custom key and by tag, /declare); these
//   requests are in lib/large-state-ops.mjs.
// On the large state also a retention pass (prune from @ttr/db, 30 days)
// over TTR_BENCH_RETENTION more completed rows 38 to 31 days old, started
// 5 s into a window of steady firing at 300/s, beside a window of the same
// rate right before it. The scheduler's own hourly
// retention is off (TTR_RETENTION_DAYS=0) so that the pass runs only then.
import { createDb, createProject, prune } from "@ttr/db";
import { OLD_FROM_DAYS, OLD_TO_DAYS, seedLargeState, seedOpTargets, seedPolicies } from "../lib/large-state-seed.mjs";
import { cpuMeter, machineCpuMs, serverGroups } from "../lib/procstat.mjs";
import { slowTicks, startTtr, ttrGroups } from "../lib/services.mjs";
import { apiOps, dashboardReads, scheduleLatency } from "../lib/large-state-ops.mjs";
import { startSink } from "../lib/sink.mjs";
import { perFire } from "../lib/firing.mjs";
import { readsMark, readsSince, timeReads, utcDay } from "../lib/pg-io.mjs";
import { analyzeFiring, secondAfter, sleep } from "../lib/stats.mjs";
import { benchProject, insertTriggers, pool } from "../lib/triggers.mjs";
import { walSplit } from "../lib/wal.mjs";

/** A whole number from the environment, or null when unset. */
function envCount(name) {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return null;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`${name} must be a whole number, not ${raw}`);
  return n;
}

/** The scenario's sizes: row counts from TTR_BENCH_PENDING / _HISTORY / _RETENTION when set. */
export function largeStateSizes(quick = false) {
  const rows = quick ? { pending: 20_000, history: 200_000, retention: 20_000 } : { pending: 1_000_000, history: 10_000_000, retention: 1_000_000 };
  return {
    pending: envCount("TTR_BENCH_PENDING") ?? rows.pending,
    history: envCount("TTR_BENCH_HISTORY") ?? rows.history,
    retention: envCount("TTR_BENCH_RETENTION") ?? rows.retention,
    rates: [300, 1000],
    seconds: quick ? 3 : 30,
    warmupSeconds: 5,
    /**
     * the warm-up of the first window after the services start: freshly
     * started processes are slower for their first ten seconds or so
     * (HISTORY.md, entry 76), whatever the database holds
     */
    firstWarmupSeconds: quick ? 5 : 15,
    /** the retention pass starts this long after the window's first due second */
    retentionAfterS: quick ? 1 : 5,
    scheduleRate: 200,
    scheduleSeconds: quick ? 2 : 10,
    /** sequential requests per dashboard read and per repeated operation */
    reads: 20,
    cancelByTag: 1000,
    declareItems: quick ? 500 : 10_000,
    /** after seeding, wait this long at most for a checkpoint to end, so that the seed's writes are not flushed during the windows */
    settleMaxS: quick ? 0 : 330,
  };
}

// ---- firing windows ----------------------------------------------------------

const TICK = "ttr_scheduler_tick_duration_seconds";
const SWEEP = "ttr_scheduler_sweep_duration_seconds";

/** One histogram of a /metrics text: cumulative bucket counts by upper bound (s), sum and count. */
function histogram(text, name) {
  const buckets = new Map();
  let sum = 0;
  let count = 0;
  // Lines carry the registry's default labels (service="scheduler") beside le.
  for (const line of text.split("\n")) {
    const m = new RegExp(`^${name}_(bucket|sum|count)(?:\\{([^}]*)\\})? (\\S+)$`).exec(line);
    if (!m) continue;
    const value = Number(m[3]);
    if (m[1] === "sum") sum = value;
    else if (m[1] === "count") count = value;
    else {
      const le = /(?:^|,)le="([^"]+)"/.exec(m[2] ?? "")?.[1];
      if (le) buckets.set(le === "+Inf" ? Number.POSITIVE_INFINITY : Number(le), value);
    }
  }
  if (buckets.size === 0) throw new Error(`the scheduler's /metrics has no ${name} histogram`);
  return { buckets, sum, count };
}

/** The scheduler's tick and sweep histograms, from one scrape. */
async function scrapeTicks(sys) {
  const text = await fetch(`http://127.0.0.1:${sys.scheduler.port}/metrics`).then((r) => r.text());
  return { ticks: histogram(text, TICK), sweeps: histogram(text, SWEEP) };
}

/**
 * Ticks between two scrapes: ticks over 100, 200 and 250 ms are counted
 * (bucket bounds), and the longest tick is known only as the upper bound of
 * the highest bucket that gained one.
 */
function tickFigures(a, b) {
  const count = b.count - a.count;
  const within = (le) => (b.buckets.get(le) ?? 0) - (a.buckets.get(le) ?? 0);
  const bounds = [...b.buckets.keys()].sort((x, y) => x - y);
  const maxBound = bounds.find((le) => within(le) >= count) ?? Number.POSITIVE_INFINITY;
  return {
    count,
    meanMs: count > 0 ? ((b.sum - a.sum) / count) * 1000 : Number.NaN,
    over100ms: count - within(0.1),
    over200ms: b.buckets.has(0.2) ? count - within(0.2) : Number.NaN,
    over250ms: count - within(0.25),
    maxAtMostMs: count > 0 ? maxBound * 1000 : Number.NaN,
  };
}

const RELATIONS = `
SELECT coalesce(sum(pg_total_relation_size(i.inhrelid)), 0)::float8 AS bytes, pg_current_wal_lsn()::text AS lsn
FROM pg_inherits i
WHERE i.inhparent IN ('triggers'::regclass, 'executions'::regclass)`;


/**
 * Bytes of every triggers and executions partition (heap, indexes, TOAST)
 * and the WAL position, after a VACUUM of the day partitions the bench's
 * rows go to (what autovacuum would do; it is off on some servers).
 */
async function storageMark(db, days) {
  for (const day of new Set(days)) {
    const suffix = day.replaceAll("-", "");
    const { rows } = await db.query("SELECT to_regclass($1) IS NOT NULL AS ok", [`triggers_p${suffix}`]);
    if (rows[0].ok) await db.query(`VACUUM triggers_p${suffix}, executions_p${suffix}`);
  }
  const { rows } = await db.query(RELATIONS);
  return { bytes: rows[0].bytes, lsn: rows[0].lsn };
}

/**
 * One window on running services: `rate` triggers due at each second for
 * `seconds` (sink slots `from` …), after an unmeasured warm-up at the same
 * rate. `during(t0)`, if given, is started before the window and awaited
 * after it; `bytes` measures storage around it; `bySecond` holds the worst
 * lateness of each due second (ms), which shows when a stall happened.
 * @param {{db: import("pg").Pool, sys: any, sink: import("../lib/sink.mjs").Sink, projectId: string, warmIds: {next: number}}} env
 * @param {{rate: number, seconds: number, warmupSeconds: number, from: number, bytes?: boolean, during?: (t0: number) => Promise<object>, endedAt?: number}} w
 *   endedAt is set to when the last trigger arrived (or the wait gave up)
 */
export async function fireWindow(env, w) {
  const { db, sys, sink, projectId } = env;
  const count = w.rate * w.seconds;
  const warm = w.rate * w.warmupSeconds;
  const offset = (i) => Math.floor(i / w.rate) * 1000;
  const before = w.bytes ? await storageMark(db, [utcDay(Date.now())]) : null;
  const warmups0 = sink.warmups();
  const t0 = secondAfter(1500 + (count + warm) / 20) + w.warmupSeconds * 1000;
  const idBase = env.warmIds.next;
  env.warmIds.next += warm;
  await insertTriggers(db, projectId, { count: warm, sinkBase: `${sink.base}/w`, dueAt: (n) => t0 - w.warmupSeconds * 1000 + offset(n), idBase });
  await insertTriggers(db, projectId, { from: w.from, count, sinkBase: sink.base, dueAt: (n) => t0 + offset(n - w.from) });
  if (Date.now() > t0 - 200) throw new Error(`inserting ${count + warm} triggers took too long: ${Date.now() - t0} ms past T0`);
  // Settled at once, so that a failure is not an unhandled rejection before the window ends.
  const during = w.during ? w.during(t0).then((value) => ({ value }), (error) => ({ error })) : null;

  const meter = await cpuMeter({ ...ttrGroups(sys), ...serverGroups(db) });
  await sleep(t0 - Date.now());
  const ticks0 = await scrapeTicks(sys);
  await meter.reset();
  const reads0 = await readsMark(db);
  const machine0 = machineCpuMs();
  const own0 = process.cpuUsage();
  const wall0 = Date.now();
  const target = sink.distinct() + count;
  const lastDue = t0 + offset(count - 1);
  await sink.waitFor(target, { deadline: lastDue, stallMs: Number.POSITIVE_INFINITY });
  const complete = await sink.waitFor(target, { deadline: lastDue + 300_000 });
  w.endedAt = Date.now();
  const ticks1 = await scrapeTicks(sys);
  const cpu = await meter.read();
  const wallMs = Date.now() - wall0;
  const own = process.cpuUsage(own0);
  const ours = Object.values(cpu).reduce((a, b) => a + b, 0) + (own.user + own.system) / 1000;
  await sleep(1000); // duplicates, if any, come right after
  const f = analyzeFiring(sink, { from: w.from, count, dueAt: (n) => t0 + offset(n - w.from) });
  const reads = await readsSince(db, reads0, f.received, wallMs);
  const out = {
    count,
    received: f.received,
    early: f.early,
    missed: f.missed,
    duplicated: f.duplicated,
    lateness: { p50: f.lateness.p50, p99: f.lateness.p99, max: f.lateness.max },
    ticks: tickFigures(ticks0.ticks, ticks1.ticks),
    sweeps: tickFigures(ticks0.sweeps, ticks1.sweeps),
    otherCpuPct: (100 * (machineCpuMs() - machine0 - ours)) / wallMs,
    /** CPU µs per fire of each process group (api, scheduler, executor, postgres, redis) over the window */
    cpuPerFireUs: perFire(cpu, f.received),
    bySecond: worstPerSecond(sink, w.from, count, w.rate, t0),
    slowTicks: slowTicks(sys, wall0, w.endedAt),
    /** blocks the database read from outside shared buffers over the window, and the time that took */
    reads,
  };
  if (!complete) out.tail = sys.procs.map((p) => `--- ${p.name}\n${p.tail()}`).join("\n");
  if (during) {
    const d = await during;
    if (d.error) throw d.error;
    out.during = d.value;
  }
  if (before) {
    const after = await storageMark(db, [utcDay(wall0 - 60_000), utcDay(Date.now())]);
    const fired = f.received + (sink.warmups() - warmups0);
    const { rows } = await db.query("SELECT pg_wal_lsn_diff($1::pg_lsn, $2::pg_lsn)::float8 AS wal", [after.lsn, before.lsn]);
    out.bytes = { fired, livePerFire: (after.bytes - before.bytes) / fired, walPerFire: rows[0].wal / fired, wal: await walSplit(db, before.lsn, after.lsn, fired) };
  }
  return out;
}

/** The pass's step durations (ms, in order) as [{step, atS, ms}], atS counted from `fromS`. */
function passSteps(ms, fromS) {
  let at = fromS;
  return Object.entries(ms).map(([step, d]) => {
    const s = { step, atS: Math.round(at * 100) / 100, ms: d };
    at += d / 1000;
    return s;
  });
}

/** The worst lateness (ms, rounded) among the triggers due in each second of a window; null for a second with one missing. */
function worstPerSecond(sink, from, count, rate, t0) {
  const worst = [];
  for (let i = 0; i < count; i++) {
    const second = Math.floor(i / rate);
    const n = from + i;
    const late = sink.counts[n] ? Math.round(sink.first[n] - (t0 + second * 1000)) : null;
    if (i % rate === 0) worst.push(late);
    else if (worst[second] !== null) worst[second] = late === null ? null : Math.max(worst[second], late);
  }
  return worst;
}

// ---- one state -----------------------------------------------------------------

/** Waits (at most maxS) until the server ends a checkpoint: the seed's dirty pages are then on disk. */
async function settle(db, maxS) {
  if (maxS <= 0) return 0;
  const started = Date.now();
  const done = async () => (await db.query("SELECT (checkpoints_timed + checkpoints_req)::float8 AS n FROM pg_stat_bgwriter")).rows[0].n;
  const n0 = await done();
  while (Date.now() - started < maxS * 1000 && (await done()) === n0) await sleep(2000);
  return (Date.now() - started) / 1000;
}

/**
 * Everything measured on one state. `large`: seed the large state first, and
 * end with the retention window.
 */
async function measureState(ctx, size, services, large, log) {
  const database = await ctx.database();
  const db = pool(database.url, 4);
  const sink = await startSink(size.rates.reduce((a, r) => a + r * size.seconds, 0) + (large ? 2 * 300 * size.seconds : 0));
  let sys = null;
  try {
    const { projectId, apiKey } = await benchProject(database.url);
    const out = {};
    if (large) {
      const admin = createDb(database.url, { max: 1, applicationName: "ttr-bench" });
      const other = await createProject(admin, "history", 1_000_000_000).finally(() => admin.$disconnect());
      log(`seeding ${size.pending.toLocaleString("en-US")} pending, ${size.history.toLocaleString("en-US")} history and ${size.retention.toLocaleString("en-US")} old rows`);
      out.seed = await seedLargeState(database.url, { projects: [projectId, other.projectId], pending: size.pending, history: size.history, old: size.retention, log });
      out.seed.settleS = await settle(db, size.settleMaxS);
      log(`seeded in ${out.seed.totalS.toFixed(0)} s (history ${out.seed.historyS.toFixed(0)} s, pending ${out.seed.pendingS.toFixed(0)} s, old ${out.seed.oldS.toFixed(0)} s, VACUUM ANALYZE ${out.seed.vacuumS.toFixed(0)} s); waited ${out.seed.settleS.toFixed(0)} s for a checkpoint`);
    }
    out.readTiming = await timeReads(db);
    await seedPolicies(db, projectId);
    const targets = await seedOpTargets(db, projectId, { n: size.reads + 1, byTag: size.cancelByTag });
    sys = await startTtr(database, ctx.redisUrl, services);
    const env = { db, sys, sink, projectId, warmIds: { next: 10_000_000 } };
    let from = 0;
    out.fire = {};
    for (const rate of size.rates) {
      log(`steady ${rate}/s for ${size.seconds} s`);
      const warmupSeconds = rate === size.rates[0] ? size.firstWarmupSeconds : size.warmupSeconds;
      const w = await fireWindow(env, { rate, seconds: size.seconds, warmupSeconds, from, bytes: rate === 300 });
      from += rate * size.seconds;
      if (w.bytes) {
        out.bytes = w.bytes;
        delete w.bytes;
      }
      out.fire[rate] = w;
    }
    log(`POST /schedule at ${size.scheduleRate}/s for ${size.scheduleSeconds} s`);
    out.schedule = await scheduleLatency(sys.apiBase, apiKey, size.scheduleRate, size.scheduleSeconds);
    log(`dashboard reads, ${size.reads} each`);
    out.reads = await dashboardReads(sys.apiBase, database.url, db, projectId, size.reads, targets.generator);
    log("API-key operations");
    out.ops = await apiOps(sys.apiBase, apiKey, targets, size);
    if (large) {
      // The pass is compared with a window of the same rate right before it:
      // the reads and operations above leave the server in another state
      // (dirty pages, a checkpoint under way) than the first 300/s window saw.
      log(`steady 300/s for ${size.seconds} s, then again with a retention pass from ${size.retentionAfterS} s in`);
      const control = await fireWindow(env, { rate: 300, seconds: size.seconds, warmupSeconds: size.warmupSeconds, from });
      from += 300 * size.seconds;
      const spec = {
        rate: 300,
        seconds: size.seconds,
        warmupSeconds: size.warmupSeconds,
        from,
        during: async (t0) => {
          await sleep(t0 + size.retentionAfterS * 1000 - Date.now());
          const started = Date.now();
          // when the old days were detached, and for how long their tables were held
          const detach = { at: Number.NaN, ms: Number.NaN };
          /** the pass's steps in order, each with the ms it took (the pass logs them as it ends) */
          let steps = {};
          const log = (msg, meta) => {
            if (msg === "retention pass steps") {
              steps = meta;
            } else if (msg === "old days detached") {
              detach.ms = meta.ms;
              detach.at = Date.now() - meta.ms;
            }
          };
          const r = await prune(database.url, { olderThanDays: 30, pauseMs: 20, lockWaitMs: 30_000, log });
          return { ...r, startedAt: started, endedAt: Date.now(), t0, detach, steps };
        },
      };
      const w = await fireWindow(env, spec);
      const { during, ...window } = w;
      out.retention = {
        control,
        window,
        passS: (during.endedAt - during.startedAt) / 1000,
        /** when the pass ran, in seconds after the window's first due second */
        passFromS: (during.startedAt - during.t0) / 1000,
        passToS: (during.endedAt - during.t0) / 1000,
        /** when the detach of the old days began, in seconds after the window's first due second, and how long it held their tables */
        detachAtS: (during.detach.at - during.t0) / 1000,
        detachMs: during.detach.ms,
        /** each step of the pass: when it began (s after the window's first due second) and how long it took (ms) */
        steps: passSteps(during.steps, (during.startedAt - during.t0) / 1000),
        removedTriggers: during.triggers,
        removedExecutions: during.executions,
        partitions: during.partitions,
        moved: during.moved,
        deferred: during.deferred,
        /** 1 when the pass ended before the window's last arrival */
        endedInWindow: during.endedAt <= spec.endedAt ? 1 : 0,
        p99DeltaMs: window.lateness.p99 - control.lateness.p99,
        /** against the first 300/s window, measured minutes earlier */
        p99DeltaFirstMs: window.lateness.p99 - out.fire[300].lateness.p99,
      };
    }
    return out;
  } finally {
    await sys?.stop();
    await sink.close();
    await db.end();
    await database.drop();
  }
}

/**
 * @param {import("../lib/infra.mjs").BenchContext} ctx
 * @param {{quick?: boolean, config: import("../config.mjs").Config, log?: (m: string) => void}} opts
 */
export async function largeStateOnce(ctx, opts) {
  const size = largeStateSizes(opts.quick);
  const log = opts.log ?? (() => {});
  const base = opts.config.services;
  // The retention pass is the bench's own, at a known moment: the scheduler's
  // hourly one is off. A tick over 200 ms (the figure counted) logs its
  // steps, which the windows collect: a log threshold, it changes nothing else.
  const services = { ...base, schedulerEnv: { ...base.schedulerEnv, TTR_RETENTION_DAYS: "0", SCHEDULER_SLOW_TICK_MS: "200" } };
  log("large-state: empty database");
  const empty = await measureState(ctx, size, services, false, (m) => log(`  empty: ${m}`));
  log("large-state: large database");
  const { seed, retention, ...large } = await measureState(ctx, size, services, true, (m) => log(`  large: ${m}`));
  return {
    sizes: { pending: size.pending, history: size.history, retention: size.retention, retentionDaysAgo: [OLD_FROM_DAYS, OLD_TO_DAYS], seconds: size.seconds, firstWarmupSeconds: size.firstWarmupSeconds, scheduleRate: size.scheduleRate, reads: size.reads },
    seed,
    empty,
    large,
    retention,
  };
}
