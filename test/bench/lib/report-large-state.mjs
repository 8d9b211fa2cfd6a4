// The large-state scenario's goals and section of BENCHMARKS.md: an empty
// database beside a large one, with the ratio where it matters.
import { fmt, isAgg, ms, table } from "./report-format.mjs";

/**
 * The large-state goals. `met` is null when the run cannot decide: smaller
 * sizes than the goal's, ticks between 100 and 250 ms in a run from before
 * the scheduler's 200-ms bucket, or a retention pass that outlasted its window.
 * @param {any} a  the scenario's aggregate
 * @param {(goal: string, measured: string, met: boolean | null) => void} add
 */
export function largeStateGoals(a, add) {
  const z = a.sizes ?? {};
  const n = (x) => Math.round(num(x)).toLocaleString("en-US");
  const bigEnough = num(z.history) >= 10_000_000 && num(z.pending) >= 1_000_000;
  const at = `at ${n(z.history)} history + ${n(z.pending)} pending`;

  const ratios = [];
  for (const rate of labels(a.large?.fire)) {
    const e = a.empty?.fire?.[rate];
    const l = a.large.fire[rate];
    ratios.push({ what: `${Number(rate).toLocaleString("en-US")}/s p99 ${ms(l.lateness.p99)} vs ${ms(e?.lateness.p99)}`, r: num(l.lateness.p99) / num(e?.lateness.p99) });
  }
  if (a.large?.schedule) ratios.push({ what: `/schedule p99 ${ms(a.large.schedule.p99)} vs ${ms(a.empty?.schedule?.p99)}`, r: num(a.large.schedule.p99) / num(a.empty?.schedule?.p99) });
  if (ratios.length) {
    const failed = num(a.empty?.schedule?.failed, "max") + num(a.large?.schedule?.failed, "max");
    const ok = ratios.every((x) => Number.isFinite(x.r) && x.r <= 1.2);
    add(
      "at 10M history + 1M pending: firing lateness p99 and /schedule p99 within 1.2 × of the empty database",
      `${ratios.map((x) => `${x.what} = ${Number.isFinite(x.r) ? x.r.toFixed(2) : "–"} ×`).join("; ")}${failed > 0 ? `; ${failed} /schedule requests failed` : ""} (${at})`,
      // Failed requests have no latency: their p99 cannot decide.
      !ok ? false : bigEnough && failed === 0 ? true : null,
    );
  }

  // Every measured window, on both databases and during the retention pass.
  const windows = [
    ...Object.entries(a.empty?.fire ?? {}).map(([rate, w]) => [`empty ${rate}/s`, w]),
    ...Object.entries(a.large?.fire ?? {}).map(([rate, w]) => [`large ${rate}/s`, w]),
    ...(a.retention?.window ? [["retention pass", a.retention.window]] : []),
  ].filter(([, w]) => w?.ticks);
  if (windows.length) {
    // Counts are medians; ticks over a bound are the worst run's.
    const sum = (key, pick = "max") => windows.reduce((t, [, w]) => t + num(w.ticks[key], pick), 0);
    const count = sum("count", "median");
    const over100 = sum("over100ms");
    const over250 = sum("over250ms");
    // Runs from before the scheduler had a 200-ms bucket have no over200ms.
    const over200 = windows.every(([, w]) => Number.isFinite(num(w.ticks.over200ms, "max"))) ? sum("over200ms") : Number.NaN;
    const [worstName, worstW] = windows.reduce((b, w) => (num(w[1].ticks.maxAtMostMs, "max") > num(b[1].ticks.maxAtMostMs, "max") ? w : b));
    const longest = `longest ${tickBound(worstW.ticks.maxAtMostMs)} (${worstName})`;
    // A tick is counted when it ends: a window without any may hide one that never ended.
    const idle = windows.filter(([, w]) => !(num(w.ticks.count, "min") > 0)).map(([name]) => name);
    const known = idle.length === 0 && Number.isFinite(over100) && Number.isFinite(over250);
    const measured = !known
      ? `no ticks counted in ${idle.join(", ") || "some window"}`
      : Number.isFinite(over200)
        ? `${over200.toLocaleString("en-US")} of ${count.toLocaleString("en-US")} ticks over 200 ms (${windows.length} windows, both databases); ${longest}`
      : over100 === 0
        ? `none of ${count.toLocaleString("en-US")} ticks over 100 ms (${windows.length} windows, both databases); ${longest}`
        : over250 > 0
          ? `${over250.toLocaleString("en-US")} of ${count.toLocaleString("en-US")} ticks over 250 ms; ${longest}`
          : `${over100.toLocaleString("en-US")} of ${count.toLocaleString("en-US")} ticks between 100 and 250 ms, none over 250 ms: the histogram has no 200-ms bound, so not shown`;
    const verdict = !known ? null : Number.isFinite(over200) ? over200 === 0 : over100 === 0 ? true : over250 > 0 ? false : null;
    add("no scheduler tick over 200 ms", measured, verdict);
  }

  // The slowest read by p99, on either database (the worst run's).
  const reads = ["empty", "large"].flatMap((state) => Object.entries(a[state]?.reads ?? {}).map(([label, x]) => ({ label, state, p99: num(x.p99, "max") })));
  if (reads.length) {
    const slowest = reads.reduce((b, x) => (x.p99 > b.p99 || Number.isNaN(x.p99) ? x : b));
    add(
      "every dashboard/session read under 100 ms",
      `slowest p99 ${Number.isFinite(slowest.p99) ? slowest.p99.toFixed(1) : "–"} ms: ${slowest.label} (${slowest.state}; ${reads.length} reads over both databases)`,
      reads.every((x) => x.p99 < 100),
    );
  }

  const t = a.retention;
  if (t) {
    const removed = num(t.removedTriggers) + num(t.removedExecutions);
    // Judged on the fires due while the pass ran (and the second after);
    // runs from before that figure are judged on their whole window.
    const running = Number.isFinite(num(t.p99DeltaWhileRunningMs));
    const d = num(running ? t.p99DeltaWhileRunningMs : t.p99DeltaMs);
    const inWindow = num(t.endedInWindow, "min") === 1;
    const ok = Number.isFinite(d) && d <= 50;
    // Runs from before the window right before the pass compared with the first 300/s window.
    const before = t.control ? "the window right before it" : "the first 300/s window";
    const base = ms((t.control ?? a.large?.fire?.["300"])?.lateness.p99);
    const whole = `${fmt(t.p99DeltaMs, 0, " ms")} (${ms(t.window.lateness.p99)} over the window with the pass vs ${base} in ${before})`;
    add(
      "a retention pass removing 1M rows raises lateness p99 by at most 50 ms",
      `${running ? `Δp99 while it ran ${fmt(t.p99DeltaWhileRunningMs, 0, " ms")} (${ms(t.p99WhileRunningMs)} for the fires due from its start to a second after its end vs ${base}); over the whole window Δp99 ${whole}` : `Δp99 ${whole}`}; removed ${n(t.removedTriggers)} triggers + ${n(t.removedExecutions)} executions in ${fmt(t.passS, 1, " s")}${inWindow ? "" : "; the pass outlasted the window"}`,
      !ok ? false : removed >= 1_000_000 && inWindow ? true : null,
    );
  }

  const bytes = ["empty", "large"].filter((state) => a[state]?.bytes).map((state) => ({ state, live: num(a[state].bytes.livePerFire), wal: num(a[state].bytes.walPerFire) }));
  if (bytes.length) {
    // 4 KB read as 4,000 B, the stricter reading.
    add(
      "at most 400 B live and 4 KB WAL per fired one-shot",
      `${bytes.map((b) => `${b.state}: ${fmt(b.live, 0, " B")} live, ${fmt(b.wal, 0, " B")} WAL`).join("; ")} (limits 400 B and 4,000 B)`,
      bytes.every((b) => b.live <= 400 && b.wal <= 4000),
    );
  }
}

// ---- large-state: an empty database and a large one side by side --------------

/**
 * A figure as a number: the median (or `key`) of an aggregate, NaN when there
 * is none; a stored null with runs behind it stood for Infinity (the JSON
 * block keeps NaN and Infinity as null, and aggregates drop NaN).
 */
function num(v, key = "median") {
  if (isAgg(v)) return v.n === 0 ? Number.NaN : (v[key] ?? Number.POSITIVE_INFINITY);
  return typeof v === "number" ? v : Number.NaN;
}

/** `large / empty` as `1.05 ×`, or – when it has no meaning. */
function times(large, empty) {
  const a = num(large);
  const b = num(empty);
  return Number.isFinite(a) && Number.isFinite(b) && b > 0 ? `${(a / b).toFixed(2)} ×` : "–";
}

/** `a − b` with its sign, from the medians. */
function delta(a, b, digits = 0, unit = " ms") {
  const d = num(a) - num(b);
  return Number.isFinite(d) ? `${d > 0 ? "+" : ""}${d.toFixed(digits)}${unit}` : "–";
}

/** The longest tick: the upper bound of the highest histogram bucket that gained one. */
function tickBound(v) {
  if (Number.isNaN(num(v, "max"))) return "–";
  return Number.isFinite(num(v, "max")) ? `≤ ${ms(v)}` : "over the highest bucket";
}

/** `p50 / p99 / max ms` of a read or a repeated operation. */
const triple = (x) => `${fmt(x?.p50, 1)} / ${fmt(x?.p99, 1)} / ${fmt(x?.max, 1)} ms`;

/** An operation's figure: one timed call (ms) or {p50, p99, max} of repeated ones. */
const isTriple = (v) => v && typeof v === "object" && !isAgg(v) && "p99" in v;
const opText = (v) => (v === undefined ? "–" : isTriple(v) ? triple(v) : fmt(v, 1, " ms"));
const opValue = (v) => (isTriple(v) ? v.p99 : v);

const labels = (...objs) => [...new Set(objs.flatMap((o) => Object.keys(o ?? {})))];

/** The windows a state's figures of one rate were taken over: several, interleaved with the other state's, or (runs before that) one. */
const windowsOf = (w) => (Array.isArray(w?.windows) ? w.windows : w ? [w] : []);

/** `name`, or `name (2 of 2)` when the rate ran in several windows. */
const windowName = (name, i, n) => (n > 1 ? `${name} (${i + 1} of ${n})` : name);
const eod = (x) => `${fmt(x?.early)} / ${fmt(x?.missed)} / ${fmt(x?.duplicated)}`;

/** Rows for the firing windows: per rate, empty, large and large / empty. */
function largeFiring(a) {
  const rates = labels(a.empty?.fire, a.large?.fire);
  const head = ["firing", ...rates.flatMap((rate) => [`${Number(rate).toLocaleString("en-US")}/s empty`, `${Number(rate).toLocaleString("en-US")}/s large`, "large / empty"])];
  const row = (label, pick, show, ratio = true) => [
    label,
    ...rates.flatMap((rate) => {
      const e = a.empty?.fire?.[rate];
      const l = a.large?.fire?.[rate];
      return [e ? show(pick(e)) : "–", l ? show(pick(l)) : "–", ratio && e && l ? times(pick(l), pick(e)) : ""];
    }),
  ];
  return table(head, [
    row("lateness p50", (x) => x.lateness.p50, ms),
    row("lateness p99", (x) => x.lateness.p99, ms),
    ...(rates.some((rate) => windowsOf(a.empty?.fire?.[rate]).length > 1)
      ? [row("lateness p99 of each window, in order", (x) => windowsOf(x).map((w) => w.lateness.p99), (list) => list.map(ms).join(" / "), false)]
      : []),
    row("lateness max", (x) => x.lateness.max, ms),
    row("early / missed / doubled", (x) => x, eod, false),
    row("scheduler ticks", (x) => x.ticks.count, (v) => fmt(v), false),
    row("tick mean", (x) => x.ticks.meanMs, (v) => fmt(v, 1, " ms")),
    row("ticks over 100 ms", (x) => x.ticks.over100ms, (v) => fmt(v), false),
    row("ticks over 200 ms", (x) => x.ticks.over200ms, (v) => fmt(v), false),
    row("ticks over 250 ms", (x) => x.ticks.over250ms, (v) => fmt(v), false),
    row("longest tick", (x) => x.ticks.maxAtMostMs, tickBound, false),
    row("sweeps (every 5 s, after a tick)", (x) => x.sweeps?.count, (v) => fmt(v), false),
    row("sweep mean", (x) => x.sweeps?.meanMs, (v) => fmt(v, 1, " ms")),
    row("longest sweep", (x) => x.sweeps?.maxAtMostMs, tickBound, false),
    ...labels(...rates.flatMap((rate) => [a.empty?.fire?.[rate]?.cpuPerFireUs, a.large?.fire?.[rate]?.cpuPerFireUs])).map((group) =>
      row(`CPU per fire, ${group}`, (x) => x.cpuPerFireUs?.[group], (v) => fmt(v, 0, " µs")),
    ),
    row("blocks read outside shared buffers, per fire", (x) => x.reads?.blocksPerFire, (v) => fmt(v, 2)),
    row("time reading them, ms per s", (x) => x.reads?.readMsPerS, (v) => fmt(v, 1, " ms")),
    row("other load", (x) => x.otherCpuPct, (v) => fmt(v, 0, "%"), false),
  ]);
}

/** Whether the windows' read times were counted. */
const readTimingText = (state) =>
  state?.readTiming === false ? "Read times were not counted (the bench may not set track_io_timing)." : "Read times are counted with track_io_timing, set for the bench's databases only (never for the server).";

/** A window's worst lateness per due second, as `0: 71, 1: 61, …`. */
const bySecondText = (bySecond) => bySecond.map((v, i) => `${i}: ${v ?? "missing"}`).join(", ");

/** The worst lateness of each due second of every firing window that kept it: when a window's late fires came. */
function largeFiringSeconds(a) {
  const lines = ["empty", "large"].flatMap((state) =>
    Object.entries(a[state]?.fire ?? {}).flatMap(([rate, pooled]) =>
      windowsOf(pooled)
        .map((w, i, all) => [windowName(`${state} ${Number(rate).toLocaleString("en-US")}/s`, i, all.length), w])
        .filter(([, w]) => Array.isArray(w.bySecond))
        .map(([name, w]) => `- ${name}: ${bySecondText(w.bySecond)}`),
    ),
  );
  return lines.length ? [`Worst lateness per due second of each window (ms), which tells a stall of one second from lateness spread over the window:\n\n${lines.join("\n")}`] : [];
}

/** One slow-tick line as `12:03:04 tick 254 ms: promoteMs 210 (3 rounds, timer 0 ms late)`. */
function slowTickText(e) {
  const [step, stepMs] = Object.entries(e.steps ?? {}).reduce((b, x) => (x[1] > b[1] ? x : b), ["", 0]);
  const kind = e.message === "slow scheduler sweeps" ? "sweeps" : "tick";
  const extra = kind === "tick" ? ` (${e.rounds?.length ?? 0} rounds, timer ${fmt(e.lateMs)} ms late)` : "";
  return `${String(e.timestamp).slice(11, 19)} ${kind} ${fmt(e.ms)} ms: ${step} ${fmt(stepMs)}${extra}`;
}

/** The scheduler's own account of each tick over 200 ms in a window (runs since the scheduler logged them). */
function largeSlowTicks(a) {
  const windows = ["empty", "large"].flatMap((state) =>
    Object.entries(a[state]?.fire ?? {}).flatMap(([rate, pooled]) =>
      windowsOf(pooled)
        .map((w, i, all) => [windowName(`${state} ${Number(rate).toLocaleString("en-US")}/s`, i, all.length), w.slowTicks])
        .filter(([, list]) => Array.isArray(list)),
    ),
  );
  if (windows.length === 0) return [];
  const lines = windows.map(([name, list]) => `- ${name}: ${list.length === 0 ? "none" : list.map(slowTickText).join("; ")}`);
  return [`Ticks and sweeps over 200 ms as the scheduler logged them (the step that took longest):\n\n${lines.join("\n")}`];
}

function largeSchedule(a) {
  const e = a.empty?.schedule;
  const l = a.large?.schedule;
  const row = (label, key, show, ratio = true) => [label, show(e?.[key]), show(l?.[key]), ratio ? times(l?.[key], e?.[key]) : ""];
  return table([`POST /schedule at ${fmt(a.sizes?.scheduleRate)} req/s`, "empty", "large", "large / empty"], [
    row("p50", "p50", ms),
    row("p99", "p99", ms),
    row("max", "max", ms),
    ...(Array.isArray(e?.runs) ? [[`p99 of each run, in order`, e.runs.map((r) => ms(r.p99)).join(" / "), (l?.runs ?? []).map((r) => ms(r.p99)).join(" / "), ""]] : []),
    row("answered", "sentPerS", (v) => fmt(v, 0, " req/s"), false),
    row("failed (errors, timeouts, non-2xx)", "failed", (v) => fmt(v), false),
  ]);
}

function largeReads(a) {
  return table(["dashboard read (p50 / p99 / max)", "empty", "large", "p99 large / empty"], labels(a.empty?.reads, a.large?.reads).map((label) => {
    const e = a.empty?.reads?.[label];
    const l = a.large?.reads?.[label];
    return [label, e ? triple(e) : "–", l ? triple(l) : "–", times(l?.p99, e?.p99)];
  }));
}

function largeOps(a) {
  return table(["API-key operation", "empty", "large", "large / empty (p99, or the one call)"], labels(a.empty?.ops, a.large?.ops).map((label) => {
    const e = a.empty?.ops?.[label];
    const l = a.large?.ops?.[label];
    return [label, opText(e), opText(l), times(opValue(l), opValue(e))];
  }));
}

function largeBytes(a) {
  const e = a.empty?.bytes;
  const l = a.large?.bytes;
  const split = e?.wal?.fpiPerFire !== undefined || l?.wal?.fpiPerFire !== undefined;
  return [
    table(["per fired one-shot (300/s window)", "empty", "large", "large / empty"], [
      ["live bytes (triggers + executions, indexes, TOAST)", fmt(e?.livePerFire, 0, " B"), fmt(l?.livePerFire, 0, " B"), times(l?.livePerFire, e?.livePerFire)],
      ["WAL bytes (server-wide)", fmt(e?.walPerFire, 0, " B"), fmt(l?.walPerFire, 0, " B"), times(l?.walPerFire, e?.walPerFire)],
      ...(split ? [["of which full-page images", fmt(e?.wal?.fpiPerFire, 0, " B"), fmt(l?.wal?.fpiPerFire, 0, " B"), ""]] : []),
      ["one-shots fired (with the warm-up)", fmt(e?.fired), fmt(l?.fired), ""],
      ["rows already in the day's partitions (triggers + executions)", fmt(e?.dayRows), fmt(l?.dayRows), ""],
    ]),
    "The page images come from pages of the day's partitions that earlier rows left with a gap: a new row that fits goes there, and a page changed first after a checkpoint is logged whole. On the large database those pages hold the seed's history of the current UTC day up to the present, so the images grow with the hour the bench runs at (HISTORY.md, 106); a production database has the day's rows of its own.",
    ...["empty", "large"].flatMap((state) => walRelations(state, a[state]?.bytes?.wal)),
  ].join("\n\n");
}

/** The relations that wrote most WAL in a window, as read from the server's WAL files (the first run's). */
function walRelations(state, wal) {
  if (!Array.isArray(wal?.relations)) return wal?.error ? [`The ${state} window's WAL could not be read: ${wal.error}`] : [];
  const list = wal.relations.map((r) => `${r.relation} ${fmt(r.perFire, 0, " B")}${r.fpiPerFire > 0 ? ` (${fmt(r.fpiPerFire, 0, " B")} full-page images)` : ""}`);
  return [`WAL per fire by relation, ${state} database (partitions under their table's name): ${list.join("; ")}.`];
}

function largeRetention(a) {
  const t = a.retention;
  const w = t.window;
  const first = a.large?.fire?.["300"];
  const control = t.control;
  // what the pass is compared with
  const base = control ?? first;
  const ended = num(t.endedInWindow, "min") === 1 ? "yes" : num(t.endedInWindow, "max") === 0 ? "**no**: the window does not cover all of it" : `in ${fmt(t.endedInWindow, 1)} of the runs (mean)`;
  // Runs from before the window right before the pass have only the first one.
  const pooled = num(a.sizes?.windowsPerRate) > 1;
  const cols = [[pooled ? "the 300/s windows above" : "first 300/s window", first], ...(control ? [["right before the pass", control]] : [])];
  const row = (label, cell, diff) => [label, ...cols.map(([, c]) => (c ? cell(c) : "–")), cell(w), diff];
  const slowest = (x) => (Array.isArray(x.bySecond) ? Math.max(...x.bySecond.map((v) => v ?? Number.POSITIVE_INFINITY)) : Number.NaN);
  return [
    table(["300/s on the large database", ...cols.map(([label]) => label), "with the pass", "difference"], [
      row("lateness p50", (x) => ms(x.lateness.p50), delta(w.lateness.p50, base?.lateness.p50)),
      row("lateness p99", (x) => ms(x.lateness.p99), `**${fmt(t.p99DeltaMs, 0, " ms")}**`),
      ...(Number.isFinite(num(t.p99WhileRunningMs))
        ? [[`lateness p99 of the fires due while the pass ran (s ${t.whileRunningS?.join("–") ?? "?"})`, ...cols.map(() => "–"), ms(t.p99WhileRunningMs), `**${fmt(t.p99DeltaWhileRunningMs, 0, " ms")}**`]]
        : []),
      row("lateness max", (x) => ms(x.lateness.max), delta(w.lateness.max, base?.lateness.max)),
      row("early / missed / doubled", eod, ""),
      row("ticks over 100 ms / over 250 ms", (x) => `${fmt(x.ticks.over100ms)} / ${fmt(x.ticks.over250ms)}`, ""),
      row("longest tick", (x) => tickBound(x.ticks.maxAtMostMs), ""),
      row("other load", (x) => fmt(x.otherCpuPct, 0, "%"), ""),
    ]),
    `The pass removed ${fmt(t.removedTriggers)} triggers and ${fmt(t.removedExecutions)} executions (${fmt(t.partitions)} day partitions dropped), moved ${fmt(t.moved)} still-pending triggers out of them and left ${fmt(t.deferred)} partitions for a later pass; it took ${fmt(t.passS, 1, " s")}; ended before the window's last arrival: ${ended}.${control ? ` The difference is taken against the window right before the pass (the reads and operations between the first window and this one change the server's state); against ${pooled ? "the earlier 300/s windows taken together" : "the first window"} it is ${fmt(t.p99DeltaFirstMs, 0, " ms")}.` : ""}`,
    ...(Array.isArray(w.bySecond) && Number.isFinite(num(t.passFromS))
      ? [`Worst lateness per due second with the pass (it ran from ${fmt(t.passFromS, 1, " s")} to ${fmt(t.passToS, 1, " s")}${Number.isFinite(num(t.detachAtS)) ? `; the old days were detached at ${fmt(t.detachAtS, 2, " s")}, holding their tables ${fmt(t.detachMs, 0, " ms")}` : ""}): ${bySecondText(w.bySecond)} ms; the slowest second right before it: ${ms(control ? slowest(control) : Number.NaN)}.`]
      : []),
    ...(Array.isArray(t.steps) && t.steps.length > 0
      ? [`The pass's steps (began at, took): ${t.steps.map((x) => `${x.step} ${fmt(x.atS, 2, " s")}, ${fmt(x.ms, 0, " ms")}`).join("; ")}.`]
      : []),
  ];
}

/** How old the retention pass's rows were: runs before the sizes recorded it seeded them 46 to 40 days ago, with no day partitions between them and the recent history. */
const oldDays = (z) =>
  Array.isArray(z.retentionDaysAgo)
    ? `${z.retentionDaysAgo[0]} to ${z.retentionDaysAgo[1]} days old, with a partition for every day since`
    : "46 to 40 days old, with no partitions for the days between them and the recent history";

export function largeState(r) {
  const a = r.agg;
  const z = a.sizes ?? {};
  const s = a.seed;
  return [
    `The same measurements on two fresh databases: empty, and large: ${fmt(z.pending)} pending one-shots due over the next 30 days and ${fmt(z.history)} completed ones with one execution each over the past 25 days, half in the firing project and half in another, plus ${fmt(z.retention)} completed ones ${oldDays(z)} for the retention pass (1 in 1,000 still pending). The scheduler's hourly retention is off (the pass below runs at a known moment). Firing windows as in steady (${fmt(z.seconds)} s each after a 5-s warm-up${z.firstWarmupSeconds ? `, ${fmt(z.firstWarmupSeconds)} s for the first window after the services start` : "; the first window's warm-up began as the services started"}); scheduler ticks from its \`ttr_scheduler_tick_duration_seconds\` histogram over each window (bounds at 100, 200 and 250 ms, among others), so the longest tick is known only as the bound of the highest bucket that gained one.`,
    ...(num(z.windowsPerRate) > 1
      ? [`Both databases have their own services, running side by side; only one of them has work at a time. Each rate ran ${fmt(z.windowsPerRate)} times on each database, alternating which went first (empty, large, large, empty), so that a machine whose speed drifts over the minutes weighs on both alike; a database's figures at a rate are over all its windows (the p99 is that of every fire of both), and each window's own p99 is shown too.`]
      : []),
    ...(s ? [`Seeding the large database took ${fmt(s.totalS, 0, " s")} (history ${fmt(s.historyS, 0, " s")}, pending ${fmt(s.pendingS, 0, " s")}, old rows ${fmt(s.oldS, 0, " s")}, VACUUM ANALYZE ${fmt(s.vacuumS, 0, " s")}; ${fmt(s.rows)} rows), then ${fmt(s.settleS, 0, " s")} waiting for a checkpoint so that its writes are not flushed during the windows.`] : []),
    readTimingText(a.large ?? a.empty),
    largeFiring(a),
    ...largeFiringSeconds(a),
    ...largeSlowTicks(a),
    `POST /schedule at a fixed ${fmt(z.scheduleRate)} req/s (autocannon \`-R\`, 8 connections, no coordinated-omission correction, after a 2-s warm-up), scheduled in 2099${Array.isArray(a.empty?.schedule?.runs) ? `; ${fmt(a.empty.schedule.runs.length)} runs of ${fmt(z.scheduleSeconds)} s on each database, interleaved as the firing windows, the percentiles over every request of both` : ""}:`,
    largeSchedule(a),
    `Dashboard reads through a signed-in session and operations with the API key, each timed from request to the last byte; reads and the repeated cancels ${fmt(z.reads)} times in a row after one warm-up call:`,
    largeReads(a),
    largeOps(a),
    "Storage per fired one-shot around the 300/s window (all triggers and executions partitions after a VACUUM of the day's; WAL counted server-wide, so an upper bound):",
    largeBytes(a),
    ...(a.retention ? [`A retention pass (\`prune\`, 30 days) over the ${fmt(z.retention)} old rows, started 5 s into a window of 300/s on the large database (1 s with --quick), against ${a.retention.control ? "a window of the same rate right before it and " : ""}${num(z.windowsPerRate) > 1 ? "the 300/s windows" : "the first 300/s window"} on the same database:`, ...largeRetention(a)] : []),
  ];
}
