// Fingerprints of the trigger tables, to prove a rejected call wrote nothing.
import { expect } from "vitest";
import type { Db } from "@ttr/db";

export async function triggerTables(db: Db, usage = true): Promise<string> {
  const rows = await db.$queryRawUnsafe<Array<{ name: string; digest: string | null }>>(`
    SELECT 'triggers' AS name, md5(string_agg(x::text, ',' ORDER BY x.id)) AS digest FROM triggers x
    UNION ALL SELECT 'generators', md5(string_agg(x::text, ',' ORDER BY x.id)) FROM generators x
    UNION ALL SELECT 'executions', md5(string_agg(x::text, ',' ORDER BY x.id)) FROM executions x
    UNION ALL SELECT 'usage', md5(string_agg(x::text, ',' ORDER BY x.project_id, x.month)) FROM project_usage x`);
  return rows.filter((r) => usage || r.name !== "usage").map((r) => `${r.name}:${r.digest ?? "-"}`).join(" ");
}

/**
 * Runs `fn` and asserts the trigger tables are unchanged after it, and the
 * quota usage too unless the call is one that spends a unit anyway.
 */
export async function expectNoWrites<T>(db: Db, fn: () => Promise<T>, opts: { usage?: boolean } = {}): Promise<T> {
  const usage = opts.usage ?? true;
  const before = await triggerTables(db, usage);
  const out = await fn();
  expect(await triggerTables(db, usage)).toBe(before);
  return out;
}
