// The first tick of a standby that takes over, on a database with the day
// partitions of ten weeks (as a month of history and the week ahead make,
// and more): two schedulers on it, the active one killed (SIGKILL) once the
// standby has run for 3 s; the standby's first tick as it logs it (every
// tick logs its steps here), and what planning its statements at start took.
// Usage: node test/bench/takeover.mjs [REPS]   (default 3)
import { readFileSync } from "node:fs";
import { clientRunner, ensurePartitions, withPgClient } from "@ttr/db";
import { freePort } from "@ttr/platform";
import { openBench } from "./lib/infra.mjs";
import { spawnNode } from "./lib/services.mjs";
import { sleep } from "./lib/stats.mjs";
import { log } from "./lib/window-bench.mjs";

const reps = Number(process.argv[2] ?? 3);
const DAY = 86_400_000;
const PAST_DAYS = 64;
const lines = (proc, message) =>
  readFileSync(proc.logFile, "utf8")
    .split("\n")
    .filter((l) => l.includes(`"${message}"`))
    .map((l) => JSON.parse(l));

const ctx = await openBench();
try {
  for (let rep = 0; rep < reps; rep++) {
    const database = await ctx.database();
    const procs = [];
    try {
      await withPgClient(database.url, (c) => ensurePartitions(clientRunner(c), new Date(), new Date(Date.now() - PAST_DAYS * DAY).toISOString().slice(0, 10)), "ttr-bench");
      const env = { DATABASE_URL: database.url, REDIS_URL: ctx.redisUrl, TTR_REDIS_PREFIX: database.redisPrefix, SCHEDULER_SLOW_TICK_MS: "1" };
      const start = async (name) => {
        const port = await freePort();
        const p = await spawnNode(name, "services/scheduler/dist/main.js", { ...env, METRICS_PORT: String(port) }, { port });
        procs.push(p);
        return p;
      };
      const active = await start("scheduler-a");
      await sleep(2000);
      const standby = await start("scheduler-b");
      await sleep(3000);
      await active.stop("SIGKILL");
      let first;
      for (const deadline = Date.now() + 15_000; !first && Date.now() < deadline; await sleep(100)) first = lines(standby, "slow scheduler tick")[0];
      const planned = lines(standby, "planned the loop's statements").map((e) => `${e.reason} ${e.ms} ms`);
      const steps = first ? Object.entries(first.steps).map(([k, v]) => `${k} ${v}`).join(", ") : "";
      log(`rep ${rep}: standby's first tick ${first?.ms ?? "none"} ms (${steps}); planned: ${planned.join(", ") || "no"}`);
    } finally {
      for (const p of procs) await p.stop("SIGKILL");
      await database.drop();
    }
  }
} finally {
  await ctx.close();
}
