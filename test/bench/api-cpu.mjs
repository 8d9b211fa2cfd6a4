// The api's CPU per call, two builds side by side. The api of build A and
// of build B (each a `services/api/dist` directory, or a copy of one taken
// before a change, beside it so that its imports resolve: services/api/dist-a) run as processes against one fresh database and Redis
// prefix, and take turns A, B, B, A, A, B, … so that whatever else the
// machine does falls on both alike. Each turn: `calls` calls, `parallel` at
// a time, after a warm-up of as many; CPU is the process's own
// (user + system, from /proc).
//
//   node test/bench/api-cpu.mjs <distA> <distB> [turns=6] [calls=6000] [kind=schedule]
//
// kind: `schedule` (plain POST /schedule), `key` (with a custom key, 500
// keys in turn, so mostly edits), `triggers` (GET /triggers with the API
// key), `declare` (POST /declare of one item). Prints each turn and the
// medians; nothing is recorded (write what it gave in HISTORY.md).
import path from "node:path";
import { freePort } from "@ttr/platform";
import { openBench, root } from "./lib/infra.mjs";
import { spawnNode } from "./lib/services.mjs";
import { benchProject } from "./lib/triggers.mjs";

const [distA, distB, turnsArg = "6", callsArg = "6000", kind = "schedule"] = process.argv.slice(2);
if (!distA || !distB) {
  console.error("usage: node test/bench/api-cpu.mjs <distA> <distB> [turns] [calls] [schedule|key|triggers|declare]");
  process.exit(2);
}
const turns = Number(turnsArg);
const calls = Number(callsArg);
const parallel = 32;

/** One call of the chosen kind; `i` numbers it. */
function callOf(base, apiKey, i) {
  const target = "http://127.0.0.1:9/cpu";
  switch (kind) {
    case "schedule":
    case "key":
      return fetch(`${base}/schedule`, {
        method: "POST",
        headers: {
          "ttr-api-key": apiKey,
          "ttr-url": target,
          "ttr-scheduled-at": "now | add 1h",
          ...(kind === "key" ? { "ttr-custom-key": `k${i % 500}` } : {}),
        },
      });
    case "triggers":
      return fetch(`${base}/triggers?limit=20`, { headers: { "ttr-api-key": apiKey } });
    case "declare":
      return fetch(`${base}/declare`, {
        method: "POST",
        headers: { "ttr-api-key": apiKey, "content-type": "application/json" },
        body: JSON.stringify({ tag: `t${i % 50}`, items: [{ url: target, scheduledAt: "now | add 1h", customKey: `d${i}` }] }),
      });
    default:
      throw new Error(`unknown kind ${kind}`);
  }
}

async function drive(api, apiKey, n, offset) {
  const base = `http://127.0.0.1:${api.port}`;
  let next = 0;
  let failed = 0;
  const worker = async () => {
    while (next < n) {
      const i = offset + next++;
      const res = await callOf(base, apiKey, i);
      await res.arrayBuffer();
      if (res.status >= 300) failed++;
    }
  };
  const cpu0 = api.cpu();
  const t0 = performance.now();
  await Promise.all(Array.from({ length: parallel }, worker));
  return { cpuUs: ((api.cpu() - cpu0) * 1000) / n, wallMs: (performance.now() - t0) / n, failed };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const bench = await openBench();
const database = await bench.database("api-cpu");
const { apiKey } = await benchProject(database.url);
const env = { DATABASE_URL: database.url, REDIS_URL: bench.redisUrl, TTR_REDIS_PREFIX: database.redisPrefix, HOST: "127.0.0.1", LOG_LEVEL: "warn" };
const apis = {};
try {
  for (const [name, dist] of [["A", distA], ["B", distB]]) {
    const port = await freePort();
    apis[name] = await spawnNode(`api-${name}`, path.relative(root, path.resolve(dist, "main.js")), { ...env, PORT: String(port) }, { port });
    await drive(apis[name], apiKey, calls, 1_000_000 * (name === "A" ? 1 : 2));
  }
  const figures = { A: [], B: [] };
  const order = Array.from({ length: turns }, (_, t) => ((t + 1) >> 1) % 2 === 0 ? "A" : "B");
  for (const [t, name] of order.entries()) {
    const f = await drive(apis[name], apiKey, calls, t * calls);
    figures[name].push(f);
    console.log(`turn ${t + 1} ${name}: ${f.cpuUs.toFixed(0)} us CPU and ${f.wallMs.toFixed(3)} ms wall per call, ${f.failed} failed`);
  }
  for (const name of ["A", "B"]) {
    const cpu = figures[name].map((f) => f.cpuUs);
    console.log(`${name} (${name === "A" ? distA : distB}): ${kind} CPU per call median ${median(cpu).toFixed(0)} us (${Math.min(...cpu).toFixed(0)}–${Math.max(...cpu).toFixed(0)}), wall median ${median(figures[name].map((f) => f.wallMs)).toFixed(3)} ms`);
  }
} finally {
  await Promise.all(Object.values(apis).map((a) => a.stop()));
  await database.drop();
  await bench.close();
}
