// large-state: what a big database costs. The same measurements, in one run,
// on two states side by side: an empty database, and a large one
// (TTR_BENCH_PENDING pending one-shots due over the next 30 days and
// TTR_BENCH_HISTORY completed one-shots with one execution each over the
// past 25 days, half in the firing project and half in another; seeded by
// lib/large-state-seed.mjs). Each state has its own services, as configured
// (defaults, see scenarios/index.mjs); both run at once, and only one of them
// is given work at a time. Measured on each state:
// - steady firing at 300 and 1,000 per s: lateness, early / missed /
//   doubled, and the scheduler's tick durations over the window (its
//   ttr_scheduler_tick_duration_seconds histogram, scraped before and after);
//   each window follows an unmeasured warm-up at its rate, 15 s for a
//   state's first window after its services start (5 s for the others).
//   Each rate runs twice on each state, in the order empty, large, large,
//   empty, so that a machine whose speed drifts during the run (a shared
//   one does) weighs on both states alike; a state's figures are over both
//   its windows (lib/large-state-window.mjs, poolWindows);
// - blocks read from outside shared buffers per fire, and the time spent
//   reading them (lib/pg-io.mjs);
// - live bytes (triggers and executions partitions with their indexes and
//   TOAST, after VACUUM) and WAL written per fired one-shot, around the
//   state's first 300/s window; WAL is counted server-wide, so it is an
//   upper bound when anything else runs on the server;
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
import { apiOps, dashboardReads, poolSchedule, scheduleLatency } from "../lib/large-state-ops.mjs";
import { OLD_FROM_DAYS, OLD_TO_DAYS, seedLargeState, seedOpTargets, seedPolicies } from "../lib/large-state-seed.mjs";
import { fireWindow, poolWindows } from "../lib/large-state-window.mjs";
import { timeReads } from "../lib/pg-io.mjs";
import { startTtr } from "../lib/services.mjs";
import { startSink } from "../lib/sink.mjs";
import { sleep } from "../lib/stats.mjs";
import { benchProject, pool } from "../lib/triggers.mjs";

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
    /** windows of each rate on each state, interleaved between the states */
    windowsPerRate: 2,
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

/** The pass's step durations (ms, in order) as [{step, atS, ms}], atS counted from `fromS`. */
function passSteps(ms, fromS) {
  let at = fromS;
  return Object.entries(ms).map(([step, d]) => {
    const s = { step, atS: Math.round(at * 100) / 100, ms: d };
    at += d / 1000;
    return s;
  });
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
 * Opens one state: its database (seeded first when `large`, then left until
 * a checkpoint ends), a sink, the rows its requests work on, and its
 * services, ready.
 */
async function openState(ctx, size, services, large, log) {
  const database = await ctx.database();
  const db = pool(database.url, 4);
  const slots = size.rates.reduce((a, r) => a + size.windowsPerRate * r * size.seconds, 0) + (large ? 2 * 300 * size.seconds : 0);
  const st = { database, db, sink: await startSink(slots), sys: null, log, out: { fire: {} }, from: 0, windows: 0 };
  try {
    const { projectId, apiKey } = await benchProject(database.url);
    if (large) {
      const admin = createDb(database.url, { max: 1, applicationName: "ttr-bench" });
      const other = await createProject(admin, "history", 1_000_000_000).finally(() => admin.$disconnect());
      log(`seeding ${size.pending.toLocaleString("en-US")} pending, ${size.history.toLocaleString("en-US")} history and ${size.retention.toLocaleString("en-US")} old rows`);
      const seed = await seedLargeState(database.url, { projects: [projectId, other.projectId], pending: size.pending, history: size.history, old: size.retention, log });
      seed.settleS = await settle(db, size.settleMaxS);
      st.out.seed = seed;
      log(`seeded in ${seed.totalS.toFixed(0)} s (history ${seed.historyS.toFixed(0)} s, pending ${seed.pendingS.toFixed(0)} s, old ${seed.oldS.toFixed(0)} s, VACUUM ANALYZE ${seed.vacuumS.toFixed(0)} s); waited ${seed.settleS.toFixed(0)} s for a checkpoint`);
    }
    st.out.readTiming = await timeReads(db);
    await seedPolicies(db, projectId);
    st.targets = await seedOpTargets(db, projectId, { n: size.reads + 1, byTag: size.cancelByTag });
    st.sys = await startTtr(database, ctx.redisUrl, services);
    st.env = { db, sys: st.sys, sink: st.sink, projectId, warmIds: { next: 10_000_000 } };
    st.apiKey = apiKey;
    st.projectId = projectId;
    return st;
  } catch (err) {
    await closeState(st);
    throw err;
  }
}

async function closeState(st) {
  await st.sys?.stop();
  await st.sink.close();
  await st.db.end();
  await st.database.drop();
}

/**
 * A firing window on a state, on its next sink slots; a state's first window
 * after its services start gets the longer warm-up. Sets `spec.endedAt` to
 * when its last trigger arrived.
 */
async function stateWindow(st, size, spec) {
  const warmupSeconds = st.windows === 0 ? size.firstWarmupSeconds : size.warmupSeconds;
  st.windows++;
  const input = { seconds: size.seconds, warmupSeconds, from: st.from, ...spec };
  const w = await fireWindow(st.env, input);
  spec.endedAt = input.endedAt;
  st.from += spec.rate * size.seconds;
  return w;
}

/**
 * `measure(st, k)` `n` times on each state, alternating which state goes
 * first (empty, large, large, empty for two), so that a drift of the
 * machine's speed over the minutes weighs on both alike. Returns each
 * state's results in order.
 */
async function interleaved(empty, large, n, measure) {
  const got = new Map([[empty, []], [large, []]]);
  for (let k = 0; k < n; k++) {
    for (const st of k % 2 === 0 ? [empty, large] : [large, empty]) got.get(st).push(await measure(st, k));
  }
  return got;
}

/** Each rate's windows, interleaved; bytes and WAL are measured around each state's first 300/s window. */
async function interleavedFiring(empty, large, size) {
  for (const rate of size.rates) {
    const got = await interleaved(empty, large, size.windowsPerRate, async (st, k) => {
      st.log(`steady ${rate}/s for ${size.seconds} s (${k + 1} of ${size.windowsPerRate})`);
      const w = await stateWindow(st, size, { rate, bytes: rate === 300 && !st.out.bytes });
      if (w.bytes) {
        st.out.bytes = w.bytes;
        delete w.bytes;
      }
      return w;
    });
    for (const st of [empty, large]) st.out.fire[rate] = poolWindows(st.sink, got.get(st));
  }
}

/**
 * The retention pass on the large state: a 300/s window, then another with
 * the pass started `retentionAfterS` into it.
 */
async function retentionWindows(st, size) {
  // The pass is compared with a window of the same rate right before it:
  // the reads and operations before leave the server in another state
  // (dirty pages, a checkpoint under way) than the first 300/s windows saw.
  st.log(`steady 300/s for ${size.seconds} s, then again with a retention pass from ${size.retentionAfterS} s in`);
  const control = await stateWindow(st, size, { rate: 300 });
  const spec = {
    rate: 300,
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
      const r = await prune(st.database.url, { olderThanDays: 30, pauseMs: 20, lockWaitMs: 30_000, log });
      return { ...r, startedAt: started, endedAt: Date.now(), t0, detach, steps };
    },
  };
  const w = await stateWindow(st, size, spec);
  const { during, ...window } = w;
  return {
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
    /** the same for the fires due while the pass ran and in the second after it */
    p99WhileRunningMs: window.whileDuring?.lateness.p99 ?? Number.NaN,
    p99DeltaWhileRunningMs: (window.whileDuring?.lateness.p99 ?? Number.NaN) - control.lateness.p99,
    /** those due seconds, after the window's first */
    whileRunningS: window.whileDuring ? [window.whileDuring.fromS, window.whileDuring.toS] : null,
    /** against the large state's 300/s windows, measured minutes earlier */
    p99DeltaFirstMs: window.lateness.p99 - st.out.fire[300].lateness.p99,
  };
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
  // The large database is seeded while nothing else runs; then both states' services run side by side.
  log("large-state: the large database");
  const large = await openState(ctx, size, services, true, (m) => log(`  large: ${m}`));
  let empty = null;
  try {
    log("large-state: the empty database");
    empty = await openState(ctx, size, services, false, (m) => log(`  empty: ${m}`));
    await interleavedFiring(empty, large, size);
    const schedule = await interleaved(empty, large, size.windowsPerRate, (st, k) => {
      st.log(`POST /schedule at ${size.scheduleRate}/s for ${size.scheduleSeconds} s (${k + 1} of ${size.windowsPerRate})`);
      return scheduleLatency(st.sys.apiBase, st.apiKey, size.scheduleRate, size.scheduleSeconds);
    });
    for (const st of [empty, large]) st.out.schedule = poolSchedule(schedule.get(st));
    for (const st of [empty, large]) {
      st.log(`dashboard reads, ${size.reads} each`);
      st.out.reads = await dashboardReads(st.sys.apiBase, st.database.url, st.db, st.projectId, size.reads, st.targets.generator);
    }
    for (const st of [empty, large]) {
      st.log("API-key operations");
      st.out.ops = await apiOps(st.sys.apiBase, st.apiKey, st.targets, size);
    }
    const retention = await retentionWindows(large, size);
    const { seed, ...largeOut } = large.out;
    return {
      sizes: {
        pending: size.pending,
        history: size.history,
        retention: size.retention,
        retentionDaysAgo: [OLD_FROM_DAYS, OLD_TO_DAYS],
        seconds: size.seconds,
        firstWarmupSeconds: size.firstWarmupSeconds,
        windowsPerRate: size.windowsPerRate,
        scheduleRate: size.scheduleRate,
        scheduleSeconds: size.scheduleSeconds,
        reads: size.reads,
      },
      seed,
      empty: empty.out,
      large: largeOut,
      retention,
    };
  } finally {
    await Promise.all([empty && closeState(empty), closeState(large)]);
  }
}
