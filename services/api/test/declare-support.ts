// Shared by the /declare and /bulk route tests: calls, error assertions and
// rows read straight from the tables.
import { expect } from "vitest";
import type { TestApi } from "../../../test/support/api.js";
import type { StoredTrigger } from "../../../test/support/rows.js";
import type { Reply } from "../../../test/support/http.js";

export function post(api: TestApi, path: "/declare" | "/bulk", body: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  const payload = typeof body === "string" ? body : JSON.stringify(body);
  return api.call("POST", path, { "ttr-api-key": api.apiKey, "Content-Type": "application/json", ...headers }, payload);
}

/** A successful call's JSON body. */
export async function ok(reply: Promise<Reply> | Reply): Promise<any> {
  const res = await reply;
  expect(res.status, res.text.slice(0, 500)).toBe(200);
  expect(res.headers["content-type"]).toMatch(/^application\/json/);
  return res.json();
}

/** `tag` null: an empty body (and no JSON Content-Type). */
export function expectError(res: Reply, status: number, tag: string | null, message?: string): void {
  expect(res.status, res.text).toBe(status);
  if (tag === null) {
    expect(res.body.length).toBe(0);
    return;
  }
  expect(res.headers["content-type"]).toMatch(/^application\/json/);
  expect(res.json()).toEqual({ _tag: tag, message });
}

export const at = (iso: string) => new Date(iso);
/** A whole-second time `hours` from now, as ISO text. */
export const inHours = (hours: number) => new Date(Math.floor(Date.now() / 1000) * 1000 + hours * 3600_000).toISOString();

/** A stored one-shot with the columns /declare also writes. */
export type JobRow = StoredTrigger & { source: string; attempts: number };

export async function jobRow(api: TestApi, id: string): Promise<JobRow> {
  const rows = await api.db.$queryRawUnsafe<JobRow[]>(
    `SELECT id::text, status::text, custom_key AS "customKey", generator_id::text AS "generatorId", title, url, method,
            headers, body, tags, source::text, scheduled_at AS "scheduledAt", attempts
     FROM triggers WHERE id = $1::uuid`,
    id,
  );
  const row = rows[0];
  if (!row) throw new Error(`no trigger ${id}`);
  return { ...row, body: row.body === null ? null : Buffer.from(row.body) };
}

export interface GeneratorRow {
  id: string;
  status: string;
  customKey: string | null;
  cronExpr: string;
  tz: string;
  title: string | null;
  url: string;
  method: string;
  headers: Array<[string, string]>;
  body: Buffer | null;
  tags: string[];
  source: string;
}

export async function generatorRow(api: TestApi, id: string): Promise<GeneratorRow> {
  const rows = await api.db.$queryRawUnsafe<GeneratorRow[]>(
    `SELECT id::text, status::text, custom_key AS "customKey", cron_expr AS "cronExpr", tz, title, url, method, headers,
            body, tags, source::text
     FROM generators WHERE id = $1::uuid`,
    id,
  );
  const row = rows[0];
  if (!row) throw new Error(`no generator ${id}`);
  return { ...row, body: row.body === null ? null : Buffer.from(row.body) };
}

/** Statuses of a recurring trigger's instances, oldest first, with their ids and times. */
export async function instances(api: TestApi, generatorId: string): Promise<Array<{ id: string; status: string; scheduledAt: Date; url: string }>> {
  return api.db.$queryRawUnsafe(
    `SELECT id::text, status::text, scheduled_at AS "scheduledAt", url FROM triggers WHERE generator_id = $1::uuid ORDER BY created_at, id`,
    generatorId,
  );
}

export async function statusOf(api: TestApi, id: string): Promise<string> {
  const rows = await api.db.$queryRawUnsafe<Array<{ status: string }>>(
    `SELECT status::text FROM triggers WHERE id = $1::uuid UNION ALL SELECT status::text FROM generators WHERE id = $1::uuid`,
    id,
  );
  return rows[0]!.status;
}

/** The pending set under a tag, as comparable text: one-shots, instances and recurring triggers with their data. */
export async function tagState(api: TestApi, tag: string): Promise<string> {
  const rows = await api.db.$queryRawUnsafe<Array<{ line: string }>>(
    `SELECT concat_ws('|', 'job', id, status, custom_key, generator_id, url, method, headers::text, encode(body, 'hex'), tags::text,
                      scheduled_at, title, updated_at) AS line
       FROM triggers WHERE $1 = ANY(tags)
     UNION ALL
     SELECT concat_ws('|', 'gen', id, status, custom_key, cron_expr, tz, url, method, headers::text, encode(body, 'hex'), tags::text,
                      title, updated_at)
       FROM generators WHERE $1 = ANY(tags)
     ORDER BY 1`,
    tag,
  );
  return rows.map((r) => r.line).join("\n");
}
