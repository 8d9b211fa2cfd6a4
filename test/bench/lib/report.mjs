// BENCHMARKS.md and the console table: every figure is the median of the
// runs with min–max beside it.
import { fmt, med, ms, table, worst } from "./report-format.mjs";
import { largeState, largeStateGoals } from "./report-large-state.mjs";

export { fmt };


function firingRows(agg, baseline) {
  return Object.entries(agg).map(([rate, r]) => {
    const b = baseline?.[rate];
    return [
      `${rate}/s`,
      ms(r.lateness.p50),
      ms(r.lateness.p99),
      ms(r.lateness.p999),
      ms(r.lateness.max),
      fmt(r.early),
      fmt(r.missed),
      fmt(r.duplicated),
      fmt(r.throughput),
      b ? `${ms(b.lateness.p99)} / ${ms(b.lateness.max)}` : "–",
      b ? `${(med(r.throughput) / med(b.throughput)).toFixed(2)} ×` : "–",
      fmt(r.otherCpuPct, 0, "%"),
    ];
  });
}

function cpuRows(agg) {
  const stages = new Set();
  for (const r of Object.values(agg)) for (const s of Object.keys(r.cpuPerFireUs)) stages.add(s);
  const rates = Object.keys(agg);
  const rows = [...stages].map((s) => [s, ...rates.map((rate) => fmt(agg[rate].cpuPerFireUs[s], 0, " µs"))]);
  rows.push(["**total**", ...rates.map((rate) => `**${Math.round(Object.values(agg[rate].cpuPerFireUs).reduce((a, v) => a + med(v), 0))} µs**`)]);
  return { head: ["stage (CPU per fire)", ...rates.map((r) => `${r}/s`)], rows };
}

function memoryRows(r) {
  return Object.entries(r.memoryMb).map(([svc, m]) => [svc, fmt(m.rss, 0, " MB"), fmt(m.hwm, 0, " MB")]);
}

/**
 * Out of the box against a hand-built queue: every setting at its default,
 * beside the baseline (BullMQ delayed jobs + got at concurrency 100).
 */
function defaultGoals(s, add) {
  const d = s.defaults?.agg;
  const b = s.baseline?.agg;
  const d1k = d?.steady?.["1000"];
  if (d1k) add("defaults, 1,000 fires/s: lateness p99 < 300 ms", `p99 ${ms(d1k.lateness.p99)} (baseline ${b?.steady?.["1000"] ? ms(b.steady["1000"].lateness.p99) : "–"})`, med(d1k.lateness.p99) < 300);
  const d2k = d?.steady?.["2000"];
  if (d2k) add("defaults, 2,000 fires/s: lateness p99 < 600 ms, none over 1 s", `p99 ${ms(d2k.lateness.p99)}, max ${ms(d2k.lateness.max)} (baseline ${b?.steady?.["2000"] ? `${ms(b.steady["2000"].lateness.p99)}, max ${ms(b.steady["2000"].lateness.max)}` : "–"})`, med(d2k.lateness.p99) < 600 && worst(d2k.lateness.max) <= 1000);
  if (d?.burst && b?.burst) {
    const ratio = med(d.burst.firesPerS) / med(b.burst.firesPerS);
    add(`defaults, ${fmt(d.burst.count)} due in one second: ≥ 1.2 × the baseline's fires/s`, `${fmt(d.burst.firesPerS)} vs ${fmt(b.burst.firesPerS)} fires/s = ${ratio.toFixed(2)} ×`, ratio >= 1.2);
  }
  const dec = s.declare?.agg;
  if (dec?.bulkVsAddBulk) add("/bulk items/s ≥ 1.0 × BullMQ addBulk (same items)", `${ms(dec.bulkWarmMs)} vs ${ms(dec.addBulkMs)} for ${fmt(dec.items)} = ${fmt(dec.bulkVsAddBulk, 2, " ×")}`, med(dec.bulkVsAddBulk) >= 1);
  const api1k = s["through-api"]?.agg?.["1000"];
  if (api1k) {
    const total = Object.values(api1k.cpuPerFireUs).reduce((t, v) => t + med(v), 0);
    const base = b?.steady?.["1000"]?.cpuPerFireUs;
    const baseTotal = base ? med(base.worker) + med(base.redis) : Number.NaN;
    add("defaults, scheduled through /bulk at 1,000/s: CPU per fire, all processes, ≤ 430 µs", `${total.toFixed(0)} µs (baseline worker + Redis: ${Number.isFinite(baseTotal) ? baseTotal.toFixed(0) : "–"} µs)`, total <= 430);
  }
}

/** The issue's goals, each with the figure that decides it. */
export function goals(s) {
  const out = [];
  const add = (goal, measured, met) => out.push({ goal, measured, met });
  const steady2k = s.steady?.agg?.["2000"];
  if (steady2k) {
    const ok = med(steady2k.lateness.p99) < 1000 && worst(steady2k.early) === 0 && worst(steady2k.missed) === 0 && worst(steady2k.duplicated) === 0;
    add("2,000 fires/s sustained: p99 < 1 s, none early, missed or doubled", `p99 ${ms(steady2k.lateness.p99)}; early ${fmt(steady2k.early)}, missed ${fmt(steady2k.missed)}, doubled ${fmt(steady2k.duplicated)}`, ok);
  }
  if (s.burst?.agg && s.baseline?.agg?.burst) {
    const ratio = med(s.burst.agg.firesPerS) / med(s.baseline.agg.burst.firesPerS);
    add("throughput ≥ 0.5 × baseline (same run)", `${fmt(s.burst.agg.firesPerS)} vs ${fmt(s.baseline.agg.burst.firesPerS)} fires/s = ${ratio.toFixed(2)} ×`, ratio >= 0.5);
  }
  const steady1k = s.steady?.agg?.["1000"];
  if (steady1k) {
    const p99 = med(steady1k.lateness.p99);
    add("1,000 fires/s: p99 < 1 s (stretch < 300 ms)", `p99 ${ms(steady1k.lateness.p99)}${p99 < 300 ? " (stretch met)" : ""}`, p99 < 1000);
  }
  if (s.burst?.agg) add("burst of 50,000 drained < 30 s", `${fmt(s.burst.agg.drainS, 1, " s")}`, med(s.burst.agg.drainS) < 30);
  if (s.api?.agg) {
    const a = s.api.agg.ttr;
    add("/schedule ≥ 3,000 req/s at p99 < 50 ms", `${fmt(a.maxRate, 0, " req/s")} at p99 < 50 ms${a.maxSent ? `; at most ${fmt(a.maxSent)} req/s answered at any latency` : ""}`, med(a.maxRate) >= 3000);
  }
  if (steady2k) {
    // The peak (VmHWM) over the run decides, not just the value at the end.
    const [name, peak] = Object.entries(steady2k.memoryMb).map(([n, m]) => [n, worst(m.hwm)]).sort((a, b) => b[1] - a[1])[0];
    const end = Math.max(...Object.values(steady2k.memoryMb).map((m) => worst(m.rss)));
    add("no service above 300 MB RSS in steady at 2,000/s", `peak ${peak.toFixed(0)} MB (${name}); at most ${end.toFixed(0)} MB at the end`, peak <= 300);
  }
  if (s.held?.agg) add("held backlog: other tags' p99 within 0.5 s of the clean run", `Δp99 ${ms(s.held.agg.p99DeltaMs)}`, med(s.held.agg.p99DeltaMs) <= 500);
  if (s["large-state"]?.agg) largeStateGoals(s["large-state"].agg, add);
  defaultGoals(s, add);
  return out;
}


const SECTIONS = {
  baseline: (r) => [
    "BullMQ delayed jobs (one per request, added ahead with `addBulk`) and a separate worker process sending them with got at concurrency 100 (ttr's executor default until 2026-11-26; 200 since). Nothing is recorded. Its lateness at each rate is in the steady table; its drain rate is the reference for ttr's throughput.",
    table(["load", "p50", "p99", "p99.9", "max", "early", "missed", "doubled", "fires/s", "worker CPU/fire", "redis CPU/fire"], [
      ...Object.entries(r.agg.steady).map(([rate, x]) => [`steady ${rate}/s`, ms(x.lateness.p50), ms(x.lateness.p99), ms(x.lateness.p999), ms(x.lateness.max), fmt(x.early), fmt(x.missed), fmt(x.duplicated), fmt(x.throughput), fmt(x.cpuPerFireUs.worker, 0, " µs"), fmt(x.cpuPerFireUs.redis, 0, " µs")]),
      [`burst ${fmt(r.agg.burst.count)}`, ms(r.agg.burst.lateness.p50), ms(r.agg.burst.lateness.p99), ms(r.agg.burst.lateness.p999), ms(r.agg.burst.lateness.max), fmt(r.agg.burst.early), fmt(r.agg.burst.missed), fmt(r.agg.burst.duplicated), fmt(r.agg.burst.firesPerS), fmt(r.agg.burst.cpuPerFireUs.worker, 0, " µs"), fmt(r.agg.burst.cpuPerFireUs.redis, 0, " µs")],
    ]),
  ],
  steady: (r, all) => {
    const cpu = cpuRows(r.agg);
    return [
      "Fire lateness = arrival at the sink minus the scheduled second. Triggers inserted by SQL ahead of time, `rate` of them due at each second for the duration.",
      "fires/s = fires divided by the time from the first due second to the last arrival (equal to the rate when ttr keeps up); × baseline = that throughput as a ratio to the baseline's at the same rate.",
      table(["rate", "p50", "p99", "p99.9", "max", "early", "missed", "doubled", "fires/s", "baseline p99 / max", "× baseline", "other load"], firingRows(r.agg, all.baseline?.agg?.steady)),
      "CPU time per fire, by stage (utime+stime deltas from /proc over the measured window, divided by fires; postgres = this database's backends plus the server's background processes):",
      table(cpu.head, cpu.rows),
      ...(r.agg["2000"] ? ["Memory at the end of steady 2,000/s (VmRSS, and VmHWM = peak):", table(["service", "RSS", "peak RSS"], memoryRows(r.agg["2000"]))] : []),
    ];
  },
  burst: (r, all) => {
    const b = all.baseline?.agg?.burst;
    return [
      "All triggers due in the same second. Drain = last arrival minus that second. Order: |arrival rank − claim rank| (claim order is oldest first, (scheduled_at, id)).",
      table(["", "drain", "fires/s", "p50", "p99", "p99.9", "early", "missed", "doubled", "order displacement p99 / max"], [
        ["ttr", fmt(r.agg.drainS, 1, " s"), fmt(r.agg.firesPerS), ms(r.agg.lateness.p50), ms(r.agg.lateness.p99), ms(r.agg.lateness.p999), fmt(r.agg.early), fmt(r.agg.missed), fmt(r.agg.duplicated), `${fmt(r.agg.order?.p99)} / ${fmt(r.agg.order?.max)}`],
        ...(b ? [["baseline", fmt(b.drainS, 1, " s"), fmt(b.firesPerS), ms(b.lateness.p50), ms(b.lateness.p99), ms(b.lateness.p999), fmt(b.early), fmt(b.missed), fmt(b.duplicated), `${fmt(b.order?.p99)} / ${fmt(b.order?.max)}`]] : []),
      ]),
      ...(b ? [`ttr / baseline throughput: **${(med(r.agg.firesPerS) / med(b.firesPerS)).toFixed(2)} ×**`] : []),
      table(["stage (CPU per fire)", "ttr", ...(b ? ["baseline"] : [])], [
        ...Object.entries(r.agg.cpuPerFireUs).map(([s, v]) => [s, fmt(v, 0, " µs"), ...(b ? [fmt(b.cpuPerFireUs[s === "executor" ? "worker" : s], 0, " µs")] : [])]),
      ]),
    ];
  },
  api: (r) => [
    `Highest fixed rate (autocannon \`-R\`, 32 connections, 8 s steps, doubling or halving then bisecting) that keeps p99 < 50 ms with no errors and sends at least 95% of the rate. Body \`{"hello":"world"}\`, scheduled in 2099 so nothing fires. autocannon's \`-R\` is not paced: each connection sends its share of the second back to back, so latencies are those of up to 32 concurrent requests; its coordinated-omission correction is off (it assumes an interval of ceil(1/rate) *ms*).`,
    table(["server", "max rate with p99 < 50 ms", "p50 / p99 there", "most req/s answered (any latency)", "p99 at the lowest rate tried", "api CPU over the steps"], [
      ["ttr /schedule", fmt(r.agg.ttr.maxRate, 0, " req/s"), `${ms(r.agg.ttr.p50AtMax)} / ${ms(r.agg.ttr.p99AtMax)}`, fmt(r.agg.ttr.maxSent), `${ms(r.agg.ttr.p99AtLowest)} at ${fmt(r.agg.ttr.lowestRate)}/s`, fmt(r.agg.ttr.apiCpuPct, 0, "% of a core")],
      ["bare express 5 + 1 INSERT", fmt(r.agg.bare.maxRate, 0, " req/s"), `${ms(r.agg.bare.p50AtMax)} / ${ms(r.agg.bare.p99AtMax)}`, fmt(r.agg.bare.maxSent), `${ms(r.agg.bare.p99AtLowest)} at ${fmt(r.agg.bare.lowestRate)}/s`, "–"],
    ]),
    `ttr / bare: **${fmt(r.agg.ratio, 2, " ×")}**`,
  ],
  scale: (r) => [
    "Executors with concurrency 50 each against a sink that holds every request 200 ms (at most 250 fires/s per executor). Fires/s between the 10th and 90th percentile arrival of a backlog due at once.",
    table(["executors", "fires/s", "ratio to 1", "early / missed / doubled", "other load"], Object.entries(r.agg).map(([n, x]) => [n, fmt(x.firesPerS), fmt(x.ratio, 2, " ×"), `${fmt(x.early)} / ${fmt(x.missed)} / ${fmt(x.duplicated)}`, fmt(x.otherCpuPct, 0, "%")])),
  ],
  declare: (r) => [
    `${fmt(r.agg.items)} keyed one-shot items under one tag, due in a day. Wall time of each call, request to response.`,
    table(["call", "time"], [
      ["/declare, first (all added)", ms(r.agg.firstAddedMs)],
      ["/declare, second (all unchanged)", ms(r.agg.secondUnchangedMs)],
      ["/declare, third (1% changed)", ms(r.agg.thirdChangedMs)],
      [`/bulk, ${fmt(r.agg.items)} upserts (all added)`, ms(r.agg.bulkUpsertsMs)],
      [`/bulk again, ${fmt(r.agg.items)} new upserts`, ms(r.agg.bulkWarmMs)],
      [`baseline: BullMQ addBulk of the same ${fmt(r.agg.items)} requests as delayed jobs`, ms(r.agg.addBulkMs)],
    ]),
    `/bulk (the second call) items/s against addBulk's: **${fmt(r.agg.bulkVsAddBulk, 2, " ×")}**`,
  ],
  held: (r) => [
    "Triggers tagged `other` due at 200/s for 60 s, on a clean system and with 100,000 due triggers held behind tag `held` (policy throughput `{\"1s\":0}`), promoted and waiting for admission before the window starts.",
    table(["run", "p50", "p99", "max", "early / missed / doubled", "scheduler CPU/fire", "postgres CPU/fire"], [
      ["clean", ms(r.agg.control.p50), ms(r.agg.control.p99), ms(r.agg.control.max), `${fmt(r.agg.control.early)} / ${fmt(r.agg.control.missed)} / ${fmt(r.agg.control.duplicated)}`, fmt(r.agg.control.schedulerUsPerFire, 0, " µs"), fmt(r.agg.control.postgresUsPerFire, 0, " µs")],
      ["100,000 held", ms(r.agg.held.p50), ms(r.agg.held.p99), ms(r.agg.held.max), `${fmt(r.agg.held.early)} / ${fmt(r.agg.held.missed)} / ${fmt(r.agg.held.duplicated)}`, fmt(r.agg.held.schedulerUsPerFire, 0, " µs"), fmt(r.agg.held.postgresUsPerFire, 0, " µs")],
    ]),
    `p99 difference: **${ms(r.agg.p99DeltaMs)}**; promoting the held backlog took ${fmt(r.agg.promoteHeldS, 1, " s")}; held triggers that fired anyway: ${fmt(r.agg.heldLeaked)}.`,
  ],
  pg: (r) => [
    "The firing pipeline's own statements (`packages/db/sql`) run by hand on one connection over 6,000 due triggers (tagged, so that their attempts take the admission path: an untagged one's attempt is dispatched by `promote_due` itself), per trigger: the backend's CPU, the wall time and the WAL written. The executor starts and finishes attempts with `start_attempts` and `finish_attempts`, prepared once per connection, each statement covering the attempts that arrived together (the `ttr_executor_db_batch_size` histogram shows how many); they are shown with 1, 10 and 100 attempts per statement.",
    table(["statement", "backend CPU", "wall", "WAL"], Object.entries(r.agg).map(([label, x]) => [label, fmt(x.cpuUs, 0, " µs"), fmt(x.wallUs, 0, " µs"), fmt(x.walKiB, 1, " KiB")])),
  ],
  "large-state": largeState,
  "through-api": (r, all) => {
    const cpu = cpuRows(r.agg);
    return [
      "The steady load with every setting at its default, each trigger scheduled through `POST /bulk` (one call per second holding that second's triggers, 2 s before they are due; after the window it goes on at the same rate, so the api works all through it). The api's CPU is inside the CPU per fire. Baseline: the baseline scenario's steady figures (BullMQ delayed jobs added ahead with addBulk, got at concurrency 100).",
      table(["rate", "p50", "p99", "p99.9", "max", "early", "missed", "doubled", "fires/s", "baseline p99 / max", "× baseline", "other load"], firingRows(r.agg, all.baseline?.agg?.steady)),
      table(cpu.head, cpu.rows),
    ];
  },
  defaults: (r, all) => [
    "The same steady and burst loads with every service setting at its default (one run).",
    table(["rate", "p50", "p99", "p99.9", "max", "early", "missed", "doubled", "fires/s", "baseline p99 / max", "× baseline", "other load"], firingRows(r.agg.steady, all.baseline?.agg?.steady)),
    table(["burst", "drain", "fires/s", "p99", "early / missed / doubled"], [[fmt(r.agg.burst.count), fmt(r.agg.burst.drainS, 1, " s"), fmt(r.agg.burst.firesPerS), ms(r.agg.burst.lateness.p99), `${fmt(r.agg.burst.early)} / ${fmt(r.agg.burst.missed)} / ${fmt(r.agg.burst.duplicated)}`]]),
  ],
};

export const ORDER = ["baseline", "steady", "burst", "api", "scale", "declare", "held", "large-state", "pg", "defaults", "through-api"];

/** Markdown for the scenarios in `results` (name → {date, config, runs, agg}), in the bench's order. */
export function renderScenarios(results) {
  const parts = [];
  for (const name of ORDER) {
    const r = results[name];
    if (!r) continue;
    const at = `${r.date.slice(0, 16).replace("T", " ")} UTC${r.commit ? `, ttr ${r.commit}` : ""}${r.cpu ? `, ${r.cpu}` : ""}`;
    parts.push(`### ${name}\n\n_${at}, ${r.runs} run(s), config ${r.config}_\n\n${SECTIONS[name](r, results).join("\n\n")}`);
  }
  return parts.join("\n\n");
}

export function renderGoals(results) {
  return table(["goal", "measured (median, min–max)", "met"], goals(results).map((g) => [g.goal, g.measured, g.met === null ? "not shown" : g.met ? "yes" : "**no**"]));
}
