// `npm run bench [-- <scenario>… ] [--quick] [--runs N] [--profile]`
//
// Runs the scenarios (all by default) on this machine with the services as
// processes and a recording HTTP sink on 127.0.0.1, prints a table, and
// (except with --quick) writes BENCHMARKS.md. Each figure is the median of
// --runs repetitions (3) with min–max. Results of scenarios not run this
// time are kept from the previous BENCHMARKS.md (its hidden JSON block).
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describeConfig, defaults, tuned } from "./config.mjs";
import { describeEnvironment } from "./lib/environment.mjs";
import { benchDir, openBench, root } from "./lib/infra.mjs";
import { ORDER, renderGoals, renderScenarios } from "./lib/report.mjs";
import { setProfileDir } from "./lib/services.mjs";
import { aggregate } from "./lib/stats.mjs";
import { summarize } from "./profile-summary.mjs";
import { scenarios } from "./scenarios/index.mjs";

const USAGE = `usage: npm run bench -- [scenario…] [--quick] [--runs N] [--profile] | --report
scenarios: ${Object.keys(scenarios).join(", ")} (default: all, in that order)
  --quick    small sizes, one run, correctness only; BENCHMARKS.md is not written
  --runs N   repetitions per scenario (default 3)
  --profile  run the services under node --cpu-prof and print where their CPU went
             (BENCHMARKS.md is not written: the profiler slows them down)
  --report   run nothing: rewrite BENCHMARKS.md from the figures it holds`;

function parseArgs(argv) {
  const opts = { names: [], quick: false, runs: 3, profile: false, report: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--quick") opts.quick = true;
    else if (a === "--profile") opts.profile = true;
    else if (a === "--report") opts.report = true;
    else if (a === "--runs") opts.runs = Number(argv[++i]);
    else if (a === "--help" || a === "-h") {
      console.log(USAGE);
      process.exit(0);
    } else if (a in scenarios) opts.names.push(a);
    else {
      console.error(`unknown argument ${a}\n${USAGE}`);
      process.exit(2);
    }
  }
  if (opts.names.length === 0) opts.names = ORDER.filter((n) => n in scenarios);
  if (opts.quick) opts.runs = 1;
  if (!(opts.runs >= 1)) throw new Error("--runs needs a positive number");
  return opts;
}

const started = Date.now();
const log = (m) => process.stderr.write(`[bench ${((Date.now() - started) / 1000).toFixed(0).padStart(5)} s] ${m}\n`);

const BENCHMARKS = path.join(root, "BENCHMARKS.md");
const DATA_MARK = "<!-- bench-data ";

function previousResults() {
  if (!existsSync(BENCHMARKS)) return {};
  const text = readFileSync(BENCHMARKS, "utf8");
  const at = text.indexOf(DATA_MARK);
  if (at === -1) return {};
  try {
    return JSON.parse(text.slice(at + DATA_MARK.length, text.indexOf(" -->", at)));
  } catch {
    return {};
  }
}

/** Figures rounded for storage: to 0.1, and ratios and other numbers under 10 to 0.001 (a ratio of 1.53 must not become 1.5). */
const round = (x) => (Math.abs(x) < 10 ? Math.round(x * 1000) / 1000 : Math.round(x * 10) / 10);
const compact = (v) => JSON.stringify(v, (_k, x) => (typeof x === "number" ? (Number.isFinite(x) ? round(x) : null) : x));

/** Violations of the correctness every firing scenario must keep. */
function correctness(name, value, pathSoFar = name, out = []) {
  if (value && typeof value === "object") {
    for (const key of ["early", "missed", "duplicated", "heldLeaked"]) {
      if (typeof value[key] === "number" && value[key] !== 0) out.push(`${pathSoFar}.${key} = ${value[key]}`);
    }
    for (const [k, v] of Object.entries(value)) if (v && typeof v === "object") correctness(name, v, `${pathSoFar}.${k}`, out);
  }
  return out;
}

function render(env, results) {
  return `# Benchmarks

Measured by \`npm run bench\` (code in \`test/bench/\`) on one machine: the api, scheduler and executor run as processes, as in production, and send to a sink on 127.0.0.1 that records when each request arrives. Every figure is the **median of the runs, with min–max** in brackets. Re-run everything with \`npm run bench\` (about an hour and a half: large-state alone seeds 23 million rows in about 25 minutes), one scenario with \`npm run bench -- <scenario>\`, a smoke run with \`npm run bench -- --quick\`.

## Machine

| | |
|---|---|
| CPU | ${env.cpu} |
| memory | ${env.memory} |
| OS | ${env.os} |
| Node.js | ${env.node} |
| PostgreSQL | ${env.postgres} |
| Redis | ${env.redis} |
| packages | ${env.packages} |
| ttr | ${env.commit} |

PostgreSQL and Redis run on the same machine as the services, the sink and the load generator: two cores for everything. The table describes the machine of the latest run; machines of the same size differ in speed, and one machine from hour to hour (test/bench/HISTORY.md), so each scenario's heading names the CPU it ran on (recorded since 2026-11-27 23:00 UTC; earlier sections ran on the machine of their day, named in test/bench/HISTORY.md where known). The "other load" columns give the CPU used meanwhile by processes that were not part of the measurement (in % of one core); a high value means the run shared the machine.

## Configurations

- **tuned** (every scenario unless said otherwise): ${describeConfig(tuned)}; everything else default. Since 2026-11-26 evening SCHEDULER_BATCH_SIZE is a tick's first batch, growing to ten times it (500 → 5,000); the tuned sections measured before then ran batches of 100 growing to 500.
- **defaults**: ${describeConfig(defaults)} (SCHEDULER_BATCH_SIZE=100: batches of 100 growing to 1,000 per tick, EXECUTOR_CONCURRENCY=200 (it was 100 until 2026-11-26: every defaults figure dated 2026-11-26 or earlier ran with 100), EXECUTOR_DB_LINGER_MS=3, EXECUTOR_FINISH_LINGER_MS=25 (3 ms like starts until 2026-11-27), executor DB_POOL_SIZE=10).

Logs stay at LOG_LEVEL=info (one JSON line per attempt) and go to a file, as a deployment would keep them.

## Goals

${renderGoals(results)}

## Scenarios

${renderScenarios(results)}

${history()}## Method

- Each scenario run gets a fresh database (cloned from a migrated template), a fresh Redis key prefix and fresh service processes; all are removed afterwards.
- Firing scenarios insert their triggers with SQL (\`unnest\` batches) before the first is due, so the api is not in the path; trigger n targets \`/t/<n>\` on the sink, which runs in a worker thread and keeps, per trigger, its arrival count and first arrival time.
- Steady loads (steady, held, defaults) begin with an unmeasured 5-second warm-up at the same rate, to \`/w/<n>\` on the sink, so that the measured window starts with the services in their steady state (JIT-compiled code, open connections, prepared statements), as in a running deployment; the baseline gets the same warm-up. Bursts have none.
- early = first arrival before the scheduled second; missed = never arrived (the wait ends once nothing new arrived for 30 s after the last due time, or 15 min after it); doubled = arrivals beyond the first.
- CPU per fire: utime+stime from \`/proc/<pid>/stat\` over the measured window (first due second to last arrival) divided by the fires.
- Memory: \`VmRSS\` / \`VmHWM\` from \`/proc/<pid>/status\` of each service at the end of the window.
- The baseline's jobs are added with BullMQ's \`timestamp\` + \`delay\` so they become due at exactly the same instants as ttr's triggers.

${DATA_MARK}${compact({ environment: env, ...results })} -->
`;
}

/** test/bench/HISTORY.md, hand-kept: what changed and the figures before and after. */
function history() {
  const file = path.join(root, "test", "bench", "HISTORY.md");
  return existsSync(file) ? `${readFileSync(file, "utf8").trim()}\n\n` : "";
}

const opts = parseArgs(process.argv.slice(2));
if (opts.report) {
  const { environment, ...previous } = previousResults();
  if (!environment) throw new Error("BENCHMARKS.md holds no figures: run the bench first");
  writeFileSync(BENCHMARKS, render(environment, previous));
  console.log(renderGoals(previous));
  process.exit(0);
}
log(`scenarios: ${opts.names.join(", ")}${opts.quick ? " (quick)" : ""}, ${opts.runs} run(s) each`);
const ctx = await openBench({ log });
const results = {};
const failures = [];
let interrupted = false;
const onSignal = () => {
  interrupted = true;
  log("interrupted: cleaning up");
  void ctx.close().finally(() => process.exit(130));
};
process.once("SIGINT", onSignal);
process.once("SIGTERM", onSignal);

try {
  const env = await describeEnvironment(ctx);
  for (const name of opts.names) {
    const scenario = scenarios[name];
    const runs = opts.quick ? 1 : (scenario.runs ?? opts.runs);
    const raw = [];
    const profileDir = opts.profile ? path.join(benchDir, "profiles", `${ctx.runId}-${name}`) : null;
    setProfileDir(profileDir);
    for (let i = 0; i < runs; i++) {
      log(`${name}: run ${i + 1}/${runs}`);
      try {
        raw.push(await scenario.once(ctx, { quick: opts.quick, config: scenario.config, log: (m) => log(`  ${m}`) }));
      } catch (err) {
        failures.push(`${name} run ${i + 1}: ${err.stack ?? err}`);
        log(`${name} run ${i + 1} failed: ${err.message}`);
      }
      if (interrupted) break;
    }
    if (raw.length === 0) continue;
    results[name] = { date: new Date().toISOString(), commit: env.commit, cpu: env.cpu, runs: raw.length, config: scenario.config.label, agg: aggregate(raw) };
    for (const v of correctness(name, raw)) failures.push(`correctness: ${v}`);
    if (profileDir && existsSync(profileDir)) {
      const { readdirSync } = await import("node:fs");
      for (const f of readdirSync(profileDir)) console.log(`${summarize(path.join(profileDir, f), 20)}\n`);
    }
  }
  const all = opts.quick || opts.profile ? results : { ...Object.fromEntries(Object.entries(previousResults()).filter(([k]) => k !== "environment")), ...results };
  console.log(`\n${renderGoals(all)}\n\n${renderScenarios(results)}\n`);
  // Profiled runs are slower than real ones: their figures are printed, never recorded.
  if (!opts.quick && !opts.profile && Object.keys(results).length > 0) {
    writeFileSync(BENCHMARKS, render(env, all));
    log(`wrote ${path.relative(process.cwd(), BENCHMARKS) || BENCHMARKS}`);
  }
} finally {
  setProfileDir(null);
  await ctx.close();
}
if (failures.length) {
  console.error(`\n${failures.length} problem(s):\n${failures.join("\n")}`);
  process.exit(1);
}
log(`done in ${((Date.now() - started) / 60000).toFixed(1)} min`);
