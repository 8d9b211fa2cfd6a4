// What a fired one-shot leaves in PostgreSQL: runs the firing pipeline's own
// statements (packages/db/sql) over N due triggers, as the scheduler and the
// executor would, on top of H rows of earlier history, and reports per fired
// trigger the WAL written and the bytes that stay (heap, indexes and TOAST of
// triggers and executions, after VACUUM), with each relation's share, and
// how much of those bytes is live data (pgstattuple, when the server lets
// it be installed): the rest is free room inside the pages.
// WAL is counted server-wide: run it alone.
// Usage: node test/bench/storage.mjs [N] [H]   (defaults 20000 and 0)
import { openBench } from "./lib/infra.mjs";
import { finishValues, promote, sql, startValues, withBenchDatabase } from "./lib/statements.mjs";
import { insertTriggers } from "./lib/triggers.mjs";

/** What the bench's target answers, as the executor records it. */
export const RESPONSE_HEADERS = JSON.stringify({ "content-type": "text/plain", "content-length": "2", date: new Date().toUTCString(), connection: "keep-alive", "keep-alive": "timeout=5" });

/** Every relation (heap, TOAST, each index) of the tables that hold history, with partitions folded into their parent's name. */
const RELATIONS = `
SELECT CASE WHEN c.relkind IN ('i', 'I') THEN 'index ' || coalesce(pi.relname, c.relname) ELSE coalesce(pt.relname, c.relname) END AS name,
       sum(pg_relation_size(c.oid) + CASE WHEN c.relkind IN ('r', 'p') THEN coalesce(pg_total_relation_size(c.reltoastrelid), 0) ELSE 0 END)::float8 AS bytes
FROM pg_class c
JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = current_schema()
LEFT JOIN pg_inherits ih ON ih.inhrelid = c.oid
LEFT JOIN pg_class pt ON pt.oid = ih.inhparent AND c.relkind = 'r'
LEFT JOIN pg_class pi ON pi.oid = ih.inhparent AND c.relkind = 'i'
WHERE c.relkind IN ('r', 'i') AND (c.relname ~ '^(triggers|executions)' OR pt.relname ~ '^(triggers|executions)')
GROUP BY 1 ORDER BY 2 DESC`;

async function relations(client) {
  return (await client.query(RELATIONS)).rows;
}

/**
 * How much of each day partition (heap or B-tree index) is live data: the
 * heap's live row versions (pgstattuple's tuple_len) and each B-tree's size
 * at its leaf density (pgstatindex). The rest is free room: fillfactor,
 * space of dead versions that later rows may reuse, and index pages that
 * VACUUM emptied of dead entries. Null when pgstattuple cannot be installed.
 */
const DATA = `
SELECT coalesce(pi.relname, pt.relname) AS name,
       sum(CASE WHEN c.relkind = 'r' THEN (pgstattuple(c.oid)).tuple_len
                WHEN am.amname = 'btree' THEN pg_relation_size(c.oid) * coalesce(nullif((pgstatindex(c.oid)).avg_leaf_density, 'NaN'), 0) / 100
                ELSE pg_relation_size(c.oid) END)::float8 AS bytes
FROM pg_class c
JOIN pg_inherits ih ON ih.inhrelid = c.oid
LEFT JOIN pg_class pt ON pt.oid = ih.inhparent AND c.relkind = 'r'
LEFT JOIN pg_class pi ON pi.oid = ih.inhparent AND c.relkind = 'i'
LEFT JOIN pg_am am ON am.oid = c.relam
WHERE (pt.relname IN ('triggers', 'executions') OR pi.relname ~ '^(triggers|executions)')
  AND pg_relation_size(c.oid) > 0
GROUP BY 1`;

async function liveData(client) {
  try {
    await client.query("CREATE EXTENSION IF NOT EXISTS pgstattuple");
  } catch {
    return null;
  }
  return new Map((await client.query(DATA)).rows.map((r) => [r.name, r.bytes]));
}

/** Fires the attempts `refs` ({executionId, partDay}) through start and finish in batches of `size`. */
async function startAndFinish(client, refs, size) {
  for (let i = 0; i < refs.length; i += size) {
    const chunk = refs.slice(i, i + size);
    await client.query({ name: "start", text: sql("start_attempts"), values: startValues(chunk) });
    await client.query({ name: "finish", text: sql("finish_attempts"), values: finishValues(chunk, RESPONSE_HEADERS) });
  }
}

export async function fireTtr(client, projectId, { from, count, batch = 500 }) {
  const due = Math.floor(Date.now() / 1000) * 1000 - 1000;
  await insertTriggers(client, projectId, { from, count, sinkBase: "http://127.0.0.1:40000", dueAt: () => due, idBase: 1e9 });
  const now = new Date();
  for (;;) {
    await client.query("BEGIN");
    const promoted = await promote(client, now, batch);
    await client.query("COMMIT");
    await startAndFinish(client, promoted, 100);
    if (promoted.length < batch) break;
  }
}

/**
 * Measures on a fresh database. `layout` replaces how triggers are fired
 * (`fire(client, projectId, {from, count})`, after `prepare(client)`), to
 * measure a row layout ttr does not have (floor.mjs); by default ttr's own
 * statements.
 */
export function storage(ctx, n = 20_000, history = 0, layout = {}) {
  const fireChunk = layout.fire ?? fireTtr;
  return withBenchDatabase(ctx, async ({ client, projectId }) => {
    await layout.prepare?.(client);
    if (history > 0) {
      await fireChunk(client, projectId, { from: 0, count: history });
      await client.query("VACUUM ANALYZE triggers, executions");
      await client.query("CHECKPOINT").catch(() => {});
    }
    const before = await relations(client);
    const data0 = await liveData(client);
    const lsn0 = (await client.query("SELECT pg_current_wal_lsn() AS l")).rows[0].l;
    // In chunks with a VACUUM between them, as autovacuum would run during
    // steady firing: the space of old row versions is reused, and what
    // remains is what history costs.
    const chunk = 2000;
    for (let done = 0; done < n; done += chunk) {
      await fireChunk(client, projectId, { from: history + done, count: Math.min(chunk, n - done) });
      await client.query("VACUUM triggers, executions");
    }
    const wal = (await client.query("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1)::float8 AS b", [lsn0])).rows[0].b;
    await client.query("VACUUM triggers, executions");
    const after = await relations(client);
    const data1 = data0 ? await liveData(client) : null;
    const was = new Map(before.map((r) => [r.name, r.bytes]));
    const dataOf = (map, name) => map.get(name.replace(/^index /, "")) ?? 0;
    const rows = after.map((r) => ({
      name: r.name,
      bytesPerFire: (r.bytes - (was.get(r.name) ?? 0)) / n,
      dataPerFire: data0 && data1 ? (dataOf(data1, r.name) - dataOf(data0, r.name)) / n : null,
    }));
    const dataPerFire = data1 ? rows.reduce((s, r) => s + r.dataPerFire, 0) : null;
    return { walPerFire: wal / n, livePerFire: rows.reduce((s, r) => s + r.bytesPerFire, 0), dataPerFire, rows };
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const ctx = await openBench();
  try {
    const n = Number(process.argv[2] ?? 20_000);
    const h = Number(process.argv[3] ?? 0);
    const r = await storage(ctx, n, h);
    const data = r.dataPerFire === null ? "" : ` (of which live data ${r.dataPerFire.toFixed(0)} B)`;
    console.log(`Per fired one-shot, ${n} fired on top of ${h} earlier: WAL ${r.walPerFire.toFixed(0)} B, live ${r.livePerFire.toFixed(0)} B${data}\n`);
    console.log(`| relation | live bytes per fire |${r.dataPerFire === null ? "" : " live data per fire |"}\n|---|---|${r.dataPerFire === null ? "" : "---|"}`);
    for (const row of r.rows) console.log(`| ${row.name} | ${row.bytesPerFire.toFixed(0)} |${row.dataPerFire === null ? "" : ` ${row.dataPerFire.toFixed(0)} |`}`);
  } finally {
    await ctx.close();
  }
}
