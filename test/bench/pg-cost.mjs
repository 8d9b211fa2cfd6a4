// Where PostgreSQL's time goes per fire: runs the firing pipeline's own SQL
// statements (packages/db/sql) by hand over N due triggers, one phase at a
// time on one connection, and reports per trigger the backend's CPU (from
// /proc), the wall time and the WAL written. The executor's batched
// start_attempts and finish_attempts run prepared, with 1, 10 and 100
// attempts per statement (the executor's batches are as large as the
// attempts that arrive together). The triggers carry a tag (without a
// policy), so their attempts take the admission path (select_dispatchable,
// mark_dispatched); an untagged trigger's attempt is dispatched by
// promote_due itself.
// Usage: node test/bench/pg-cost.mjs [N]   (N divisible by 3; default 6000)
import { openBench } from "./lib/infra.mjs";
import { cpuMs } from "./lib/procstat.mjs";
import { finishValues, promote, sql, withBenchDatabase } from "./lib/statements.mjs";
import { insertTriggers } from "./lib/triggers.mjs";

async function phase(client, label, count, fn) {
  const pid = (await client.query("SELECT pg_backend_pid() AS pid")).rows[0].pid;
  const lsn0 = (await client.query("SELECT pg_current_wal_lsn() AS l")).rows[0].l;
  const cpu0 = cpuMs(pid);
  const t0 = performance.now();
  await fn();
  const wall = performance.now() - t0;
  const cpu = cpuMs(pid) - cpu0;
  const wal = (await client.query("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1)::float8 AS b", [lsn0])).rows[0].b;
  return { label, cpuUs: (cpu * 1000) / count, wallUs: (wall * 1000) / count, walBytes: wal / count };
}

export function pgCost(ctx, n = 6000, batch = 500) {
  return withBenchDatabase(ctx, async ({ client, projectId }) => {
    const due = Math.floor(Date.now() / 1000) * 1000 - 1000;
    const rows = [];
    rows.push(await phase(client, "insert triggers (unnest, 5,000 per statement)", n, () => insertTriggers(client, projectId, { count: n, sinkBase: "http://127.0.0.1:9", dueAt: () => due, tags: ["bench"] })));
    const now = new Date();
    rows.push(
      await phase(client, `claim_due + promote_due, batches of ${batch} in a transaction`, n, async () => {
        for (;;) {
          await client.query("BEGIN");
          const promoted = await promote(client, now, batch);
          await client.query("COMMIT");
          if (promoted.length < batch) break;
        }
      }),
    );
    const ids = [];
    rows.push(
      await phase(client, `select_dispatchable + mark_dispatched, batches of ${batch}`, n, async () => {
        for (;;) {
          await client.query("BEGIN");
          const r = await client.query(sql("select_dispatchable"), [now, batch]);
          const batchIds = r.rows.map((x) => x.executionId);
          if (batchIds.length) await client.query(sql("mark_dispatched"), [batchIds]);
          await client.query("COMMIT");
          ids.push(...batchIds);
          if (batchIds.length < batch) break;
        }
      }),
    );
    const third = Math.floor(ids.length / 3);
    const ways = [
      [1, ids.slice(0, third)],
      [10, ids.slice(third, 2 * third)],
      [100, ids.slice(2 * third, 3 * third)],
    ];
    for (const [size, list] of ways) {
      const chunks = [];
      for (let i = 0; i < list.length; i += size) chunks.push(list.slice(i, i + size));
      rows.push(await phase(client, `start_attempts, ${size} per statement (prepared)`, list.length, async () => {
        for (const c of chunks) await client.query({ name: "start", text: sql("start_attempts"), values: [c, 300, 30] });
      }));
      rows.push(await phase(client, `finish_attempts, ${size} per statement (prepared)`, list.length, async () => {
        for (const c of chunks) await client.query({ name: "finish", text: sql("finish_attempts"), values: finishValues(c) });
      }));
    }
    return rows;
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const ctx = await openBench();
  try {
    const n = Number(process.argv[2] ?? 6000);
    const rows = await pgCost(ctx, n);
    console.log(`PostgreSQL cost per trigger, ${n} triggers, one connection:\n`);
    console.log("| phase | backend CPU | wall | WAL |\n|---|---|---|---|");
    for (const r of rows) console.log(`| ${r.label} | ${r.cpuUs.toFixed(0)} µs | ${r.wallUs.toFixed(0)} µs | ${(r.walBytes / 1024).toFixed(1)} KiB |`);
  } finally {
    await ctx.close();
  }
}
