// What a fire writes to the WAL once a day partition has been fired into for
// a while, as on a production server: ttr's services on a PostgreSQL server
// of your own with its defaults (autovacuum on, a checkpoint every 5
// minutes), fed RATE triggers every second, each due LEAD seconds after it
// is written, for MINUTES minutes. Every minute it prints the fires, the WAL
// per fire and the part of it that full-page images took (by relation), the
// checkpoints and autovacuums so far, and the minute's lateness p99; at the
// end, the bytes the history tables grew by per fire (autovacuum as it ran).
// large-state measures windows of 35 s on a seeded database; this measures
// the state ttr's own writes leave (docs/storage.md, full-page images).
//
// It reads the WAL with pg_waldump, so it needs the server's data directory
// and no other traffic on that server. One of your own, as root on Debian:
//
//   mkdir -p /tmp/pgs && chown postgres /tmp/pgs
//   su postgres -c "/usr/lib/postgresql/15/bin/initdb -D /tmp/pgs/data -A trust -U postgres"
//   su postgres -c "/usr/lib/postgresql/15/bin/pg_ctl -D /tmp/pgs/data -o '-p 5498 -k /tmp/pgs -c listen_addresses=127.0.0.1 -c wal_keep_size=4GB' -l /tmp/pgs/log start"
//
// Usage: node test/bench/steady-wal.mjs <server URL> [MINUTES] [RATE] [LEAD]
//   e.g. node test/bench/steady-wal.mjs postgres://postgres@127.0.0.1:5498/postgres 20 300 10
// LEAD may be a range, A-B: each trigger is then written A to B seconds
// before it is due, at random, so that the triggers of one second were
// written at scattered times, as reminders scheduled ahead are. The
// writes end LEAD (or B) seconds before the last fires: the minutes after
// that write no triggers ahead, less WAL than a steady day, and are not
// to be read as such.
// (wal_keep_size: a minute's WAL files must still be there to be read.)
// TTR_BENCH_SQL, if set, is run on the test database before the services start.
// TTR_BENCH_PAD=P gives each URL a query of 0 to P characters, at random, so
// that rows differ in size as a production's do (all rows alike otherwise).
import { openBench } from "./lib/infra.mjs";
import { utcDay } from "./lib/pg-io.mjs";
import { startTtr } from "./lib/services.mjs";
import { startSink } from "./lib/sink.mjs";
import { percentile, sleep } from "./lib/stats.mjs";
import { benchProject, insertTriggers, pool } from "./lib/triggers.mjs";
import { walSplit } from "./lib/wal.mjs";
import { closeAll, log } from "./lib/window-bench.mjs";

const [url, minutesArg, rateArg, leadArg] = process.argv.slice(2);
if (!url) {
  console.error("usage: node test/bench/steady-wal.mjs <server URL> [MINUTES] [RATE] [LEAD]  (see the comment at the top)");
  process.exit(2);
}
const minutes = Number(minutesArg ?? 20);
const rate = Number(rateArg ?? 300);
const total = minutes * 60 * rate;
const pad = Number(process.env.TTR_BENCH_PAD ?? 0);
const query = pad > 0 ? () => `p=${"x".repeat(Math.floor(Math.random() * (pad + 1)))}` : null;

const ctx = await openBench({ pgServerUrl: url, redisUrl: process.env.REDIS_URL ?? "redis://127.0.0.1:6379/0" });
const database = await ctx.database();
const db = pool(database.url, 4);
const sink = await startSink(total + rate * 2);
let sys;
try {
  const { projectId } = await benchProject(database.url);
  if (process.env.TTR_BENCH_SQL) await db.query(process.env.TTR_BENCH_SQL);
  sys = await startTtr(database, ctx.redisUrl, { schedulerEnv: { TTR_RETENTION_DAYS: "0" } });
  const [leadMin, leadMax] = String(leadArg ?? 10).split("-").map((x) => Number(x) * 1000);
  const leadSpan = (leadMax ?? leadMin) - leadMin;
  const origin = Date.now();
  const start = Math.ceil((origin + leadMin + leadSpan + 2000) / 1000) * 1000;
  const dueAt = (n) => start + Math.floor(n / rate) * 1000;
  // Which triggers the feeder writes in each second after `origin`, in the order written.
  const bySecond = [];
  for (let n = 0; n < total; n++) {
    const at = dueAt(n) - leadMin - Math.random() * leadSpan;
    const sec = Math.floor((at - origin) / 1000);
    bySecond[sec] ??= [];
    bySecond[sec].push({ n, at });
  }
  const feeding = (async () => {
    let written = 0;
    for (let sec = 0; sec < bySecond.length; sec++) {
      const ns = (bySecond[sec] ?? []).sort((a, b) => a.at - b.at).map((x) => x.n);
      await sleep(origin + sec * 1000 - Date.now());
      if (ns.length > 0) await insertTriggers(db, projectId, { ns, idBase: written, sinkBase: sink.base, dueAt, query });
      written += ns.length;
    }
  })();

  const counters = async () => {
    const { rows } = await db.query(`
      SELECT pg_current_wal_lsn()::text AS lsn, w.wal_bytes::float8 AS wal, w.wal_fpi::float8 AS fpi,
             (b.checkpoints_timed + b.checkpoints_req)::int AS checkpoints,
             (SELECT coalesce(sum(autovacuum_count), 0)::int FROM pg_stat_user_tables WHERE relname ~ $1) AS autovacuums
      FROM pg_stat_wal w, pg_stat_bgwriter b`, [`_p${utcDay(Date.now()).replaceAll("-", "")}$`]);
    return rows[0];
  };
  console.log("| minute | fires | WAL per fire | page images per fire | images by relation | top records with images | checkpoints | autovacuums (day) | lateness p99 |\n|---|---|---|---|---|---|---|---|---|");
  const kept = async () =>
    (await db.query("SELECT coalesce(sum(pg_total_relation_size(inhrelid)), 0)::float8 AS b FROM pg_inherits WHERE inhparent IN ('triggers'::regclass, 'executions'::regclass)")).rows[0].b;
  const keptBefore = await kept();
  // from the first due second: the WAL of the writes ahead of it is not counted, those of later seconds are
  await sleep(start - Date.now());
  let prev = await counters();
  let prevFired = sink.distinct();
  for (let m = 1; m <= minutes; m++) {
    await sleep(start + m * 60_000 - Date.now());
    const now = await counters();
    const fired = sink.distinct() - prevFired;
    prevFired += fired;
    const split = fired > 0 ? await walSplit(db, prev.lsn, now.lsn, fired) : null;
    const images = split?.relations?.filter((r) => r.fpiPerFire > 0).map((r) => `${r.relation.replace(/^index /, "i:")} ${r.fpiPerFire}`).join(", ") ?? "";
    const records = split?.fpiRecords?.slice(0, 4).map((r) => `${r.relation.replace(/^index /, "i:")} ${r.type} ${r.fpiPerFire}`).join(", ") ?? "";
    const late = [];
    for (let n = (m - 1) * 60 * rate; n < m * 60 * rate; n++) if (sink.first[n] > 0) late.push(sink.first[n] - dueAt(n));
    late.sort((a, b) => a - b);
    console.log(`| ${m} | ${fired} | ${Math.round((now.wal - prev.wal) / fired)} | ${split?.fpiPerFire ?? "?"} | ${images} | ${records} | ${now.checkpoints} | ${now.autovacuums} | ${late.length ? Math.round(percentile(late, 99)) : "?"} |`);
    prev = now;
  }
  await feeding;
  log(`sent ${sink.distinct()} of ${total}; the history tables grew by ${Math.round(((await kept()) - keptBefore) / prevFired)} B per fire`);
} finally {
  await closeAll({ sys, sink, db, database, ctx });
}
