// The firing pipeline's own SQL (packages/db/sql) for benches that run its
// statements by hand, and a scratch database with one connection for them.
import { readFileSync } from "node:fs";
import path from "node:path";
import { root } from "./infra.mjs";
import { benchProject, pool } from "./triggers.mjs";

export const sql = (name) => readFileSync(path.join(root, "packages", "db", "sql", `${name}.sql`), "utf8");

/** The day all of `refs` are stored under (start_attempts and finish_attempts take one day per statement, as the executor groups them). */
function oneDay(refs) {
  const days = new Set(refs.map((r) => r.partDay));
  if (days.size !== 1) throw new Error(`attempts of ${days.size} days in one statement`);
  return refs[0].partDay;
}

/** start_attempts' parameters for attempts `refs` ({executionId, partDay}, as the queue job names them), all of one day. */
export function startValues(refs) {
  return [refs.map((r) => r.executionId), oneDay(refs), 300, 30];
}

/** finish_attempts' parallel arrays for a successful 200 "ok" of each of `refs` (all of one day), with these response headers (JSON text). */
export function finishValues(refs, responseHeaders = '{"content-type":"text/plain"}') {
  const fill = (v) => Array(refs.length).fill(v);
  return [refs.map((r) => r.executionId), fill(new Date()), fill(200), fill(responseHeaders), fill("ok"), fill(2), fill(null), fill(false), fill(null), oneDay(refs)];
}

/**
 * One batch of due triggers promoted as the scheduler does (claim_due, then
 * promote_due with the claimed ids and days), on `client` inside the
 * caller's transaction. Returns promote_due's rows.
 */
export async function promote(client, now, batch) {
  const due = (await client.query(sql("claim_due"), [now, batch])).rows;
  if (due.length === 0) return [];
  return (await client.query(sql("promote_due"), [due.map((d) => d.id), [...new Set(due.map((d) => d.partDay))]])).rows;
}

/** Runs `fn({client, projectId, url})` on a fresh database of the run with a bench project; drops it afterwards. */
export async function withBenchDatabase(ctx, fn) {
  const database = await ctx.database();
  const db = pool(database.url, 1);
  const client = await db.connect();
  try {
    const { projectId } = await benchProject(database.url);
    return await fn({ client, projectId, url: database.url });
  } finally {
    client.release();
    await db.end();
    await database.drop();
  }
}
