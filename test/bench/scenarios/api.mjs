// api: /schedule under a fixed request rate (autocannon's overallRate, `-R`).
// The highest rate that holds p99 < 50 ms with no errors, found by doubling
// (or halving) then bisecting, beside a bare express 5 handler that does one
// INSERT, on the same machine and database server.
//
// autocannon's -R is not paced: each connection sends its share of the second
// back to back, then waits for the next second. Latencies are those of up to
// `connections` concurrent requests, so the connection count is kept at 32
// (enough for 6,400 req/s at 5 ms each). Its coordinated-omission correction
// assumes an interval of ceil(1 / rate) ms (seconds mistaken for ms), so it
// is turned off and latencies are as measured.
import autocannon from "autocannon";
import { freePort } from "@ttr/platform";
import { spawnNode, startTtr } from "../lib/services.mjs";
import { benchProject } from "../lib/triggers.mjs";

export const P99_LIMIT_MS = 50;
export const sizes = {
  full: { stepSeconds: 8, start: 500, bisections: 3, connections: 32 },
  quick: { stepSeconds: 2, start: 200, bisections: 0, connections: 16 },
};

function load(url, headers, rate, seconds, connections) {
  return new Promise((resolve, reject) => {
    autocannon(
      { url, method: "POST", headers, body: '{"hello":"world"}', connections, overallRate: rate, duration: seconds, ignoreCoordinatedOmission: true },
      (err, result) => (err ? reject(err) : resolve(result)),
    );
  });
}

/** One step: passes when p99 < limit, nothing failed and at least 95% of the rate was sent. */
async function step(url, headers, rate, size) {
  const r = await load(url, headers, rate, size.stepSeconds, size.connections);
  const sent = r.requests.total / size.stepSeconds;
  const failed = r.errors + r.timeouts + r.non2xx;
  return { rate, p50: r.latency.p50, p99: r.latency.p99, achieved: sent, failed, ok: r.latency.p99 < P99_LIMIT_MS && failed === 0 && sent >= 0.95 * rate };
}

/**
 * Doubling from `start` until a step fails (halving, down to 25/s, when the
 * first one fails), then bisecting between the last pass and the first failure.
 */
async function highestRate(url, headers, size, log) {
  await load(url, headers, 100, 2, 10); // warm-up: JIT, pools, connections
  const steps = [];
  const run = async (rate) => {
    const s = await step(url, headers, rate, size);
    steps.push(s);
    log?.(`  ${rate}/s: p99 ${s.p99} ms, sent ${Math.round(s.achieved)}/s, failed ${s.failed}`);
    return s;
  };
  let good = null;
  let bad = null;
  const first = await run(size.start);
  if (first.ok) {
    good = first;
    for (let rate = size.start * 2; rate <= 32_000; rate *= 2) {
      const s = await run(rate);
      if (!s.ok) {
        bad = s;
        break;
      }
      good = s;
    }
  } else {
    bad = first;
    for (let rate = Math.floor(size.start / 2); rate >= 25; rate = Math.floor(rate / 2)) {
      const s = await run(rate);
      if (s.ok) {
        good = s;
        break;
      }
      bad = s;
    }
  }
  for (let i = 0; i < size.bisections && good && bad; i++) {
    const rate = Math.round((good.rate + bad.rate) / 2 / 25) * 25;
    if (rate === good.rate || rate === bad.rate) break;
    const s = await run(rate);
    if (s.ok) good = s;
    else bad = s;
  }
  const lowest = steps.reduce((a, b) => (b.rate < a.rate ? b : a));
  return {
    maxRate: good?.rate ?? 0,
    p99AtMax: good?.p99 ?? Number.NaN,
    p50AtMax: good?.p50 ?? Number.NaN,
    /** the most requests per second any step got answered, whatever the latency */
    maxSent: Math.max(...steps.map((s) => s.achieved)),
    lowestRate: lowest.rate,
    p99AtLowest: lowest.p99,
    steps: steps.length,
  };
}

/**
 * @param {import("../lib/infra.mjs").BenchContext} ctx
 * @param {{quick?: boolean, config: import("../config.mjs").Config, log?: (m: string) => void}} opts
 */
export async function apiOnce(ctx, opts) {
  const size = opts.quick ? sizes.quick : sizes.full;
  const out = {};
  {
    const database = await ctx.database();
    const sys = await startTtr(database, ctx.redisUrl, { ...opts.config.services, scheduler: false, executors: 0 });
    try {
      const { apiKey } = await benchProject(database.url);
      opts.log?.("api: ttr /schedule");
      const headers = {
        "ttr-api-key": apiKey,
        "ttr-url": "http://127.0.0.1:9/t/0",
        "ttr-scheduled-at": "2099-01-01T00:00:00Z",
        "content-type": "application/json",
      };
      const before = sys.api.cpu();
      const t = Date.now();
      out.ttr = await highestRate(`${sys.apiBase}/schedule`, headers, size, opts.log);
      out.ttr.apiCpuPct = (100 * (sys.api.cpu() - before)) / (Date.now() - t);
      out.ttr.rssMb = sys.api.memory().rss;
    } finally {
      await sys.stop();
      await database.drop();
    }
  }
  {
    const database = await ctx.database();
    const port = await freePort();
    const bare = await spawnNode("bare-api", "test/bench/bare-api.mjs", { DATABASE_URL: database.url, PORT: String(port) }, { port, readyPath: "/ready" });
    try {
      opts.log?.("api: bare express 5 + one INSERT");
      const headers = { "ttr-url": "http://127.0.0.1:9/t/0", "ttr-scheduled-at": "2099-01-01T00:00:00Z", "content-type": "application/json" };
      out.bare = await highestRate(`http://127.0.0.1:${port}/schedule`, headers, size, opts.log);
    } finally {
      await bare.stop();
      await database.drop();
    }
  }
  out.ratio = out.bare.maxRate > 0 ? out.ttr.maxRate / out.bare.maxRate : Number.NaN;
  return out;
}
