// Where PostgreSQL's time goes per fire: runs the firing pipeline's own SQL
// statements (packages/db/sql) by hand over N due triggers, one phase at a
// time on one connection, and reports per trigger the backend's CPU (from
// /proc), the wall time and the WAL written. The executor's batched
// start_attempts and finish_attempts run prepared and planned for each
// call's values, as the executor's pool runs them, with 1, 10 and 100
// attempts per statement (the executor's batches are as large as the
// attempts that arrive together). The triggers carry a tag (without a
// policy), so their attempts take the admission path (select_dispatchable,
// mark_dispatched); an untagged trigger's attempt is dispatched by
// promote_due itself.
// Usage: node test/bench/pg-cost.mjs [N] [D]   (N divisible by 3; default 6000;
// D: day partitions made for the past D days, as months of history have)
import { openBench } from "./lib/infra.mjs";
import { cpuMs } from "./lib/procstat.mjs";
import { finishValues, promote, sql, startValues, withBenchDatabase } from "./lib/statements.mjs";
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

export function pgCost(ctx, n = 6000, batch = 500, pastDays = 0) {
  return withBenchDatabase(ctx, async ({ client, projectId }) => {
    if (pastDays > 0) await client.query("SELECT ttr_ensure_partitions(current_date - $1::int, current_date)", [pastDays]);
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
    const refs = [];
    rows.push(
      await phase(client, `select_dispatchable + mark_dispatched, batches of ${batch}`, n, async () => {
        for (;;) {
          await client.query("BEGIN");
          const r = await client.query(sql("select_dispatchable"), [now, batch]);
          // planned per call, as the scheduler sends it (PLANNED_PER_CALL in packages/db/src/pool.ts)
          if (r.rows.length) await client.query(sql("mark_dispatched"), [r.rows.map((x) => x.executionId), [...new Set(r.rows.map((x) => x.partDay))]]);
          await client.query("COMMIT");
          refs.push(...r.rows);
          if (r.rows.length < batch) break;
        }
      }),
    );
    // As autovacuum would have by now on a running system: without
    // statistics the planner takes a fresh day's partition for empty.
    await client.query("ANALYZE triggers, executions");
    // As the executor's pool plans them (customPlans in packages/db/src/pool.ts);
    // PLAN_MODE=force_generic_plan measures kept plans instead.
    await client.query(`SET plan_cache_mode = ${process.env.PLAN_MODE ?? "force_custom_plan"}`);
    const third = Math.floor(refs.length / 3);
    const ways = [
      [1, refs.slice(0, third)],
      [10, refs.slice(third, 2 * third)],
      [100, refs.slice(2 * third, 3 * third)],
    ];
    for (const [size, list] of ways) {
      const chunks = [];
      for (let i = 0; i < list.length; i += size) chunks.push(list.slice(i, i + size));
      rows.push(await phase(client, `start_attempts, ${size} per statement (prepared)`, list.length, async () => {
        for (const c of chunks) await client.query({ name: "start", text: sql("start_attempts"), values: startValues(c) });
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
    const days = Number(process.argv[3] ?? 0);
    const rows = await pgCost(ctx, n, 500, days);
    console.log(`PostgreSQL cost per trigger, ${n} triggers, one connection, ${days} past day partitions:\n`);
    console.log("| phase | backend CPU | wall | WAL |\n|---|---|---|---|");
    for (const r of rows) console.log(`| ${r.label} | ${r.cpuUs.toFixed(0)} µs | ${r.wallUs.toFixed(0)} µs | ${(r.walBytes / 1024).toFixed(1)} KiB |`);
  } finally {
    await ctx.close();
  }
}
