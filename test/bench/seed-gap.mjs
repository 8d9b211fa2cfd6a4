// What a retention pass costs firing, by how the old history lies: on a
// database of 300,000 rows of history (25 days) and 50,000 pending, OLD rows
// (default 1,000,000) are written again before each window and a pass
// (prune, 30 days) runs 5 s into a window of 300 fires a second. Variants
// alternate: `gap` writes them 46 to 40 days ago with no partitions between
// them and the recent history (as large-state seeded before 2026-11-28, so
// the pass first makes the missing days after its cutoff), `every` 38 to 31
// days ago with every day's partitions (as a ttr that ran through them has).
// Per window it prints the worst lateness of each due second, the pass's
// steps and the spike: the worst second of the pass less the median of the
// seconds outside it. test/bench/HISTORY.md, entry 72.
// Usage: node test/bench/seed-gap.mjs [REPS] [OLD]   (defaults 3, 1000000)
import { prune } from "@ttr/db";
import { seedLargeState } from "./lib/large-state-seed.mjs";
import { sleep } from "./lib/stats.mjs";
import { log, summarize, windowBench } from "./lib/window-bench.mjs";

const reps = Number(process.argv[2] ?? 3);
const oldRows = Number(process.argv[3] ?? 1_000_000);
const variants = ["gap", "every"];
const seconds = 14;
const DAY = 86_400_000;
const dayOf = (ms) => new Date(ms).toISOString().slice(0, 10);
const results = Object.fromEntries(variants.map((v) => [v, []]));
await windowBench(reps * variants.length * 300 * seconds, async ({ database, db, projects, fire }) => {
  for (let r = 0; r < reps; r++) {
    for (const v of variants) {
      await seedLargeState(database.url, { projects, pending: 0, history: 0, old: oldRows, oldDaysAgo: v === "gap" ? [46, 40] : [38, 31] });
      if (v === "gap") {
        // no partitions between the old rows' last day and the recent history's first (25 days ago)
        const firstKept = dayOf(Date.now() - 25 * DAY);
        for (let t = Date.now() - 39 * DAY; dayOf(t) < firstKept; t += DAY) {
          const s = dayOf(t).replaceAll("-", "");
          for (const table of [`executions_p${s}`, `trigger_tags_p${s}`, `triggers_p${s}`]) await db.query(`DROP TABLE IF EXISTS ${table}`);
        }
      }
      const parts = (await db.query("SELECT count(*)::int AS n FROM pg_inherits WHERE inhparent = 'triggers'::regclass")).rows[0].n;
      await db.query("CHECKPOINT");
      await sleep(3000);
      let steps = {};
      let pass = {};
      const w = await fire({
        seconds,
        during: async (t0) => {
          await sleep(t0 + 5000 - Date.now());
          const started = Date.now();
          const res = await prune(database.url, {
            olderThanDays: 30,
            pauseMs: 20,
            lockWaitMs: 30_000,
            log: (m, meta) => {
              if (m === "retention pass steps") steps = meta;
            },
          });
          pass = { ...res, fromS: (started - t0) / 1000, toS: (Date.now() - t0) / 1000 };
          return {};
        },
      });
      const s = w.bySecond;
      const end = Math.ceil(pass.toS) + 1;
      const calm = [...s.slice(0, 5), ...s.slice(end)].sort((a, b) => a - b);
      const spike = Math.max(...s.slice(5, end)) - calm[Math.floor(calm.length / 2)];
      results[v].push({ p99: w.lateness.p99, spike });
      log(`${v.padEnd(6)} rep ${r}: ${parts} partitions, dropped ${pass.partitions}; p99 ${w.lateness.p99}; pass ${pass.fromS}-${pass.toS} s, steps ${JSON.stringify(steps)}; worst ${s.join(",")}; spike +${spike}`);
    }
  }
});
summarize(results);
