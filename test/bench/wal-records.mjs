// What a fired one-shot writes to the WAL, by record type and by relation:
// runs storage.mjs's firing on a PostgreSQL server of your own and reads the
// WAL it wrote with `pg_waldump` (`--stats=record`, and each record's first
// block, named after the table or index it belongs to), so that each change
// to a row or an index can be counted per fire (docs/storage.md, what a
// fire writes).
//
// It needs the server's data directory (pg_waldump reads the WAL files) and
// no other traffic on that server while it runs, so not the machine's
// shared PostgreSQL. One of your own, as root on Debian:
//
//   mkdir -p /tmp/pgw && chown postgres /tmp/pgw
//   su postgres -c "/usr/lib/postgresql/15/bin/initdb -D /tmp/pgw/data -A trust -U postgres"
//   su postgres -c "/usr/lib/postgresql/15/bin/pg_ctl -D /tmp/pgw/data -o '-p 5499 -k /tmp/pgw -c autovacuum=off -c wal_keep_size=1GB' -l /tmp/pgw/log start"
//
// Usage: node test/bench/wal-records.mjs <server URL> <data directory> [N]
//   e.g. node test/bench/wal-records.mjs postgres://postgres@127.0.0.1:5499/postgres /tmp/pgw/data 20000
// (autovacuum off: storage.mjs runs its own VACUUMs, at known moments;
// wal_keep_size: the window's WAL files must still be there to be read.)
import { existsSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { openBench } from "./lib/infra.mjs";
import { byRelation, FILES, recordStats, waldump } from "./lib/wal.mjs";
import { fireTtr, storage } from "./storage.mjs";

const [url, dataDir, nArg] = process.argv.slice(2);
if (!url || !dataDir || !existsSync(path.join(dataDir, "pg_wal"))) {
  console.error("usage: node test/bench/wal-records.mjs <server URL> <data directory> [N]  (see the comment at the top)");
  process.exit(2);
}
const n = Number(nArg ?? 20_000);
const admin = new pg.Client({ connectionString: url });
await admin.connect();
const version = (await admin.query("SHOW server_version_num")).rows[0].server_version_num.slice(0, -4);
const ctx = await openBench({ pgServerUrl: url, redisUrl: process.env.REDIS_URL ?? "redis://127.0.0.1:6379/0" });
try {
  // storage() counts its own window's WAL; the record types come from the
  // same span, which also holds the test database's creation (a few
  // hundred full-page images of the catalog, shown as XLOG/FPI).
  const from = (await admin.query("SELECT pg_current_wal_lsn() AS l")).rows[0].l;
  // the test database is dropped at the end: its files are named while it is there
  const names = new Map();
  const fire = async (client, projectId, chunk) => {
    await fireTtr(client, projectId, chunk);
    for (const row of (await client.query(FILES)).rows) names.set(row.file, row.name);
  };
  const r = await storage(ctx, n, 0, { fire });
  await admin.query("SELECT pg_switch_wal()");
  const to = (await admin.query("SELECT pg_current_wal_lsn() AS l")).rows[0].l;
  console.log(`Per fired one-shot, ${n} fired: WAL ${r.walPerFire.toFixed(0)} B, live ${r.livePerFire.toFixed(0)} B\n`);
  console.log("| WAL record type | records per fire | bytes per fire | of which full-page images |\n|---|---|---|---|");
  const rows = recordStats(waldump(version), path.join(dataDir, "pg_wal"), from, to).sort((a, b) => b.bytes - a.bytes);
  for (const row of rows.filter((x) => x.bytes / n >= 5)) {
    console.log(`| ${row.type} | ${(row.count / n).toFixed(2)} | ${(row.bytes / n).toFixed(0)} | ${(row.fpiBytes / n).toFixed(0)} |`);
  }
  console.log("\n(record types under 5 B per fire left out)\n");
  const detail = byRelation(waldump(version), path.join(dataDir, "pg_wal"), from, to, names);
  const total = new Map();
  for (const row of detail) total.set(row.relation, (total.get(row.relation) ?? 0) + row.bytes);
  console.log("| relation | bytes per fire | of which (record type: records, bytes per fire) |\n|---|---|---|");
  for (const [relation, bytes] of [...total].sort((a, b) => b[1] - a[1]).filter(([, b]) => b / n >= 5)) {
    const parts = detail
      .filter((row) => row.relation === relation && row.bytes / n >= 5)
      .sort((a, b) => b.bytes - a.bytes)
      .map((row) => `${row.type}: ${(row.count / n).toFixed(2)}, ${(row.bytes / n).toFixed(0)} B`);
    console.log(`| ${relation} | ${(bytes / n).toFixed(0)} | ${parts.join("; ")} |`);
  }
  console.log("\n(relations and record types under 5 B per fire left out)");
} finally {
  await ctx.close();
  await admin.end();
}
