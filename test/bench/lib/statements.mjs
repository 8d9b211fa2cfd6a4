// The firing pipeline's own SQL (packages/db/sql) for benches that run its
// statements by hand, and a scratch database with one connection for them.
import { readFileSync } from "node:fs";
import path from "node:path";
import { root } from "./infra.mjs";
import { benchProject, pool } from "./triggers.mjs";

export const sql = (name) => readFileSync(path.join(root, "packages", "db", "sql", `${name}.sql`), "utf8");

/** finish_attempts' parallel arrays for a successful 200 "ok" of each id, with these response headers (JSON text). */
export function finishValues(ids, responseHeaders = '{"content-type":"text/plain"}') {
  const fill = (v) => Array(ids.length).fill(v);
  return [ids, fill(new Date()), fill(200), fill(responseHeaders), fill("ok"), fill(2), fill(null), fill(false), fill(null)];
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
