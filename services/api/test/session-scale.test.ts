// The dashboard lists at scale (docs/api/dashboard-api.md): with 100k triggers and
// executions in a project, a page reads a number of buffers that follows the
// page size, not the project size, at the first page and deep down alike.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createProject, sql } from "@ttr/db";
import { startApi, type TestApi } from "../../../test/support/api.js";
import { signIn, type TestSession } from "../../../test/support/session.js";

const N = 100_000;
let api: TestApi;
let s: TestSession;

beforeAll(async () => {
  api = await startApi();
  s = await signIn(api);
  const noise = await createProject(api.db, "noise", 10);
  for (const projectId of [api.projectId, noise.projectId]) {
    await api.db.$executeRawUnsafe(
      `INSERT INTO triggers (id, project_id, status, url, method, headers, tags, scheduled_at, attempts, created_at, updated_at)
       SELECT gen_random_uuid(), $1::uuid,
              (ARRAY['registered','completed','completed','cancelled','retrying','completed'])[1 + i % 6]::trigger_status,
              'http://127.0.0.1:9/', 'POST', '[]', ARRAY['common', 't' || (i % 7)], now(), 1,
              now() - make_interval(secs => i), now()
       FROM generate_series(1, $2::int) i`,
      projectId, N,
    );
    await api.db.$executeRawUnsafe(
      `INSERT INTO generators (id, project_id, status, cron_expr, tz, url, method, headers, tags, created_at, updated_at)
       SELECT gen_random_uuid(), $1::uuid, 'active', '* * * * *', 'UTC', 'http://127.0.0.1:9/', 'GET', '[]', ARRAY['common'],
              now() - make_interval(secs => i * 97), now()
       FROM generate_series(1, 1000) i`,
      projectId,
    );
    await api.db.$executeRawUnsafe(
      `INSERT INTO executions (id, part_day, trigger_id, project_id, attempt_number, triggered_by, status, planned_at, completed_at,
                               response_status, is_dead_letter, created_at)
       SELECT gen_random_uuid(), t.part_day, t.id, t.project_id, 1, 'scheduler', 'complete', t.created_at, t.created_at + interval '1 second',
              200, (row_number() OVER ()) % 50 = 0, t.created_at
       FROM triggers t WHERE t.project_id = $1::uuid`,
      projectId,
    );
  }
  await api.db.$executeRawUnsafe("ANALYZE triggers, trigger_tags, generators, executions");
}, 120_000);
afterAll(() => api.close());

/** Shared buffers the statement touched, from EXPLAIN (ANALYZE, BUFFERS). */
async function buffers(name: string, ...params: unknown[]): Promise<number> {
  const rows = await api.db.$queryRawUnsafe<Array<{ "QUERY PLAN": Array<{ Plan: Record<string, number> }> }>>(
    `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${sql(name)}`,
    ...params,
  );
  const plan = rows[0]!["QUERY PLAN"][0]!.Plan;
  return plan["Shared Hit Blocks"]! + plan["Shared Read Blocks"]!;
}

describe("100k triggers in a project", () => {
  it("trigger list pages read a bounded number of buffers", async () => {
    const p = api.projectId;
    const deep = { at: new Date(Date.now() - 90_000 * 1000), id: "00000000-0000-4000-8000-000000000000" };
    const cases: Array<[string, unknown[]]> = [
      ["first page", [true, null, true, null, null, null, null, null, 51]],
      ["deep page", [true, null, true, null, null, null, deep.at, deep.id, 51]],
      ["largest page", [true, null, true, null, null, null, null, null, 501]],
      ["status", [true, "completed", false, null, null, null, deep.at, deep.id, 51]],
      ["tag", [true, null, true, null, "t3", null, null, null, 51]],
      ["generators only", [false, null, true, "active", null, null, null, null, 501]],
    ];
    for (const [label, params] of cases) {
      // A seq scan of 100k triggers alone reads about 2,000 buffers.
      expect(await buffers("session_list_triggers", p, ...params), label).toBeLessThan(300);
    }
  });

  it("execution list pages read a bounded number of buffers", async () => {
    const p = api.projectId;
    expect(await buffers("session_list_executions", p, null, false, null, null, 51)).toBeLessThan(100);
    expect(await buffers("session_list_executions", p, null, false, new Date(Date.now() - 90_000 * 1000), "00000000-0000-4000-8000-000000000000", 51)).toBeLessThan(100);
    expect(await buffers("session_list_executions", p, null, true, null, null, 51)).toBeLessThan(300);
  });

  it("the endpoints answer a full walk of pages in order", async () => {
    let page = await s.get("/triggers?limit=500");
    let seen = page.triggers.length;
    let last = page.triggers.at(-1);
    for (let i = 0; i < 20; i++) {
      page = await s.get(`/triggers?limit=500&cursor=${page.nextCursor}`);
      expect(Date.parse(page.triggers[0].createdAt)).toBeLessThanOrEqual(Date.parse(last.createdAt));
      seen += page.triggers.length;
      last = page.triggers.at(-1);
    }
    expect(seen).toBe(21 * 500);
  });
});
