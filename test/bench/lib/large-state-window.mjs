// One firing window of the large-state scenario (scenarios/large-state.mjs)
// on running services, and the figures of several windows of one rate taken
// together: lateness over all their fires, scheduler ticks and sweeps from
// its histograms, CPU and reads per fire, storage and WAL around a window.
import { perFire } from "./firing.mjs";
import { readsMark, readsSince, utcDay } from "./pg-io.mjs";
import { cpuMeter, machineCpuMs, serverGroups } from "./procstat.mjs";
import { slowTicks, ttrGroups } from "./services.mjs";
import { analyzeFiring, secondAfter, sleep } from "./stats.mjs";
import { insertTriggers } from "./triggers.mjs";
import { walSplit } from "./wal.mjs";

/**
 * How long before T0 a window takes its marks: after the warm-up's last tick
 * has ended (ticks begin just after each second and take 50–250 ms here),
 * before the window's first begins.
 */
const MARKS_AHEAD_MS = 300;

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
 * rows go to (what autovacuum would do; it is off on some servers); and
 * the rows those partitions held then (their statistics, fresh from the
 * VACUUM). New rows fill the gaps that pages of earlier rows keep, and each
 * such page changed first after a checkpoint is logged whole, so the WAL's
 * page images grow with those rows: on the large database, with the hour of
 * the UTC day, as its seed writes the day's history up to the present
 * (HISTORY.md, 106).
 */
async function storageMark(db, days) {
  const tables = [];
  for (const day of new Set(days)) {
    const suffix = day.replaceAll("-", "");
    const { rows } = await db.query("SELECT to_regclass($1) IS NOT NULL AS ok", [`triggers_p${suffix}`]);
    if (!rows[0].ok) continue;
    tables.push(`triggers_p${suffix}`, `executions_p${suffix}`);
    await db.query(`VACUUM triggers_p${suffix}, executions_p${suffix}`);
  }
  const counted = await db.query("SELECT coalesce(sum(greatest(reltuples, 0)), 0)::float8 AS n FROM pg_class WHERE relname = ANY ($1)", [tables]);
  const { rows } = await db.query(RELATIONS);
  return { bytes: rows[0].bytes, lsn: rows[0].lsn, dayRows: counted.rows[0].n };
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
  // Counted before T0: the window's first fires may arrive while the marks
  // below are taken, and a target counted after them would never be reached
  // (the wait would then end only at its 30-s stall, and the CPU, reads and
  // ticks over the window would take in those idle seconds).
  const target = sink.distinct() + count;
  // The marks are taken MARKS_AHEAD_MS before T0, between the warm-up's last
  // tick and the window's first, so that the scrape (whose queue-depth gauge
  // runs a statement), the meter's reset and the reads mark do not run beside
  // the first tick (HISTORY.md, 104). Ticks that end from here on are in the
  // histogram's counts below (its scrape comes next); their log lines are
  // taken from this moment too.
  await sleep(t0 - MARKS_AHEAD_MS - Date.now());
  const ticksFrom = Date.now();
  const ticks0 = await scrapeTicks(sys);
  await meter.reset();
  const reads0 = await readsMark(db);
  const machine0 = machineCpuMs();
  const own0 = process.cpuUsage();
  const wall0 = Date.now();
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
    rate: w.rate,
    from: w.from,
    t0,
    ...firingFigures(f),
    ticks: tickFigures(ticks0.ticks, ticks1.ticks),
    sweeps: tickFigures(ticks0.sweeps, ticks1.sweeps),
    otherCpuPct: (100 * (machineCpuMs() - machine0 - ours)) / wallMs,
    /** CPU µs per fire of each process group (api, scheduler, executor, postgres, redis) over the window */
    cpuPerFireUs: perFire(cpu, f.received),
    bySecond: worstPerSecond(sink, w.from, count, w.rate, t0),
    slowTicks: slowTicks(sys, ticksFrom, w.endedAt),
    /** blocks the database read from outside shared buffers over the window, and the time that took */
    reads,
  };
  if (!complete) out.tail = sys.procs.map((p) => `--- ${p.name}\n${p.tail()}`).join("\n");
  if (during) {
    const d = await during;
    if (d.error) throw d.error;
    out.during = d.value;
    // the fires due while it ran, and in the second after it (a stall at its end delays those)
    if (Number.isFinite(d.value?.startedAt)) out.whileDuring = dueBetween(sink, w, t0, d.value.startedAt, d.value.endedAt + 1000);
  }
  if (before) {
    const after = await storageMark(db, [utcDay(wall0 - 60_000), utcDay(Date.now())]);
    const fired = f.received + (sink.warmups() - warmups0);
    const { rows } = await db.query("SELECT pg_wal_lsn_diff($1::pg_lsn, $2::pg_lsn)::float8 AS wal", [after.lsn, before.lsn]);
    out.bytes = { fired, dayRows: before.dayRows, livePerFire: (after.bytes - before.bytes) / fired, walPerFire: rows[0].wal / fired, wal: await walSplit(db, before.lsn, after.lsn, fired) };
  }
  return out;
}

/** What a window keeps of analyzeFiring's figures. */
const firingFigures = (f) => ({
  count: f.count,
  received: f.received,
  early: f.early,
  missed: f.missed,
  duplicated: f.duplicated,
  lateness: { p50: f.lateness.p50, p99: f.lateness.p99, max: f.lateness.max },
});

/** Firing figures of the window's triggers due in the whole seconds from `fromMs` to `toMs`, and those seconds (after T0). */
function dueBetween(sink, w, t0, fromMs, toMs) {
  const first = Math.max(0, Math.floor((fromMs - t0) / 1000));
  const last = Math.min(w.seconds, Math.ceil((toMs - t0) / 1000));
  const count = Math.max(0, last - first) * w.rate;
  const f = analyzeFiring(sink, { from: w.from + first * w.rate, count, dueAt: (n) => t0 + Math.floor((n - w.from) / w.rate) * 1000 });
  return { fromS: first, toS: last, ...firingFigures(f) };
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


/** Ticks (or sweeps) of several windows as one: counts added, the mean weighted by them, the longest the longest. */
function addTicks(list) {
  const count = list.reduce((t, x) => t + x.count, 0);
  const sum = (key) => list.reduce((t, x) => t + x[key], 0);
  return {
    count,
    meanMs: count > 0 ? list.reduce((t, x) => t + (x.count > 0 ? x.meanMs * x.count : 0), 0) / count : Number.NaN,
    over100ms: sum("over100ms"),
    over200ms: sum("over200ms"),
    over250ms: sum("over250ms"),
    maxAtMostMs: Math.max(...list.map((x) => (x.count > 0 ? x.maxAtMostMs : Number.NEGATIVE_INFINITY))),
  };
}

/** A per-fire figure of several windows as one: each window's weighted by its fires. */
function perFireOf(windows, pick) {
  const keys = [...new Set(windows.flatMap((w) => Object.keys(pick(w) ?? {})))];
  const fired = windows.reduce((t, w) => t + w.received, 0);
  return Object.fromEntries(keys.map((k) => [k, windows.reduce((t, w) => t + (pick(w)?.[k] ?? Number.NaN) * w.received, 0) / fired]));
}

/**
 * Windows of one rate on one state, measured at different times, taken as
 * one: lateness over all their fires (its p99 is the p99 of every fire of
 * every window), correctness and ticks added up, CPU and reads per fire
 * weighted by each window's fires. The windows must use consecutive sink
 * slots; each stays under `windows` with its own figures.
 * @param {import("./sink.mjs").Sink} sink
 */
export function poolWindows(sink, windows) {
  const [first] = windows;
  for (let i = 1; i < windows.length; i++) {
    const prev = windows[i - 1];
    if (windows[i].rate !== first.rate || windows[i].from !== prev.from + prev.count) throw new Error("pooled windows must share a rate and follow each other in the sink");
  }
  const count = windows.reduce((t, w) => t + w.count, 0);
  const dueAt = (n) => {
    const w = windows.find((x) => n < x.from + x.count);
    return w.t0 + Math.floor((n - w.from) / w.rate) * 1000;
  };
  const f = analyzeFiring(sink, { from: first.from, count, dueAt });
  const out = {
    ...firingFigures(f),
    ticks: addTicks(windows.map((w) => w.ticks)),
    sweeps: addTicks(windows.map((w) => w.sweeps)),
    otherCpuPct: windows.reduce((t, w) => t + w.otherCpuPct, 0) / windows.length,
    cpuPerFireUs: perFireOf(windows, (w) => w.cpuPerFireUs),
    reads: perFireOf(windows, (w) => ({ blocksPerFire: w.reads.blocksPerFire, readMsPerS: w.reads.readMsPerS })),
    windows,
  };
  const tails = windows.filter((w) => w.tail).map((w) => w.tail);
  if (tails.length) out.tail = tails.join("\n");
  return out;
}
