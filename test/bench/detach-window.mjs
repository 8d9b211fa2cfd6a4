// What detaching old days costs firing, with and without waiting for a
// quiet moment: on a database of 300,000 rows of history and 50,000 pending
// (the day partitions of a month), 7 empty old days are made, then detached
// (detachDays) at a random moment 4–5 s into a window of 300 fires a second,
// and dropped 100 ms apart as a retention pass does. Variants alternate:
// `random` detaches at once, `quiet` waits for a quiet moment first (the
// default of detachDays). Per window it prints the worst lateness of each
// due second and the spike: the worst of the detach's second and the next,
// less the median of the seconds away from it; and the first tick after the
// detach (every tick logs its steps here): how long it took, and the claim
// of its first round, which plans again when its kept plan is gone.
// Usage: node test/bench/detach-window.mjs [REPS] [random,quiet]   (defaults 5, both)
import { readFileSync } from "node:fs";
import { clientRunner, detachDays, waitForQuiet } from "@ttr/db";
import { slowTicks } from "./lib/services.mjs";
import { sleep } from "./lib/stats.mjs";
import { log, summarize, windowBench } from "./lib/window-bench.mjs";

const reps = Number(process.argv[2] ?? 5);
const variants = (process.argv[3] ?? "random,quiet").split(",");
const seconds = 8;
const DAY = 86_400_000;
const dayOf = (ms) => new Date(ms).toISOString().slice(0, 10);
/** The scheduler's lines saying it planned its statements again, since `from`. */
const replans = (sys, from) =>
  readFileSync(sys.scheduler.logFile, "utf8")
    .split("\n")
    .filter((l) => l.includes("planned the loop's statements"))
    .map((l) => JSON.parse(l))
    .filter((e) => Date.parse(e.timestamp) >= from);
const results = Object.fromEntries(variants.map((v) => [v, []]));
await windowBench(reps * variants.length * 300 * seconds, async ({ db, env, fire }) => {
  for (let r = 0; r < reps; r++) {
    for (const v of variants) {
      const first = dayOf(Date.now() - 60 * DAY);
      const last = dayOf(Date.now() - 54 * DAY);
      await db.query("SELECT ttr_ensure_partitions($1::date, $2::date)", [first, last]);
      const days = [];
      for (let t = Date.parse(first); t <= Date.parse(last); t += DAY) {
        const s = dayOf(t).replaceAll("-", "");
        days.push({ triggersTable: `triggers_p${s}`, executionsTable: `executions_p${s}`, tagsTable: `trigger_tags_p${s}` });
      }
      let at = 0;
      let ms = 0;
      let detachedAt = 0;
      const w = await fire({
        seconds,
        during: async (t0) => {
          await sleep(t0 + 4000 + Math.random() * 1000 - Date.now());
          const c = await db.connect();
          const cr = clientRunner(c);
          try {
            if (v === "quiet") await waitForQuiet(cr);
            at = Date.now() - t0;
            await detachDays(cr, days, { quiet: false });
            ms = Date.now() - t0 - at;
            detachedAt = Date.now();
            for (const d of days) {
              for (const t of [d.executionsTable, d.tagsTable, d.triggersTable]) {
                await sleep(100);
                await c.query(`DROP TABLE ${t}`);
              }
            }
          } finally {
            c.release();
          }
          return {};
        },
      });
      const s = w.bySecond;
      const sec = Math.floor(at / 1000);
      const spike = Math.max(...s.slice(sec, sec + 2));
      const calm = [...s.slice(0, 4), ...s.slice(7)].sort((a, b) => a - b);
      const base = calm[Math.floor(calm.length / 2)];
      // a tick's line is written when it ends: the first to end after the detach began after it or ran through it
      const next = slowTicks(env.sys, detachedAt, detachedAt + 5000).find((t) => t.message === "slow scheduler tick");
      const tick = next ? `${next.ms} ms (first claim ${next.rounds?.[0]?.promoteMs} ms)` : "none logged";
      const planned = replans(env.sys, detachedAt - ms - 100).map((e) => `${e.ms} ms`);
      results[v].push({ p99: w.lateness.p99, spike: spike - base, tick: next?.ms ?? Number.NaN });
      log(`${v.padEnd(9)} rep ${r}: p99 ${w.lateness.p99} detach at ${at} ms for ${ms} ms; worst ${s.join(",")}; spike +${spike - base}; next tick ${tick}; planned between ticks: ${planned.join(", ") || "no"}`);
    }
  }
}, { SCHEDULER_SLOW_TICK_MS: "1" });
summarize(results);
