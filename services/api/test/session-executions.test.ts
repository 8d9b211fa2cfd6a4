// GET /executions (docs/api/dashboard-api.md; docs/concepts.md, dead letters).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type TestApi } from "../../../test/support/api.js";
import { otherProject, seedExecution, seedTrigger, type TestSession } from "../../../test/support/session.js";

let api: TestApi;
let p: { projectId: string; session: TestSession };
let foreign: { projectId: string; session: TestSession };
let triggerIdA = "";
/** executions of trigger A */
const triggerA: string[] = [];
/** newest first */
const order: string[] = [];
const deadLetters: string[] = [];

beforeAll(async () => {
  api = await startApi();
  p = await otherProject(api, "executions");
  foreign = await otherProject(api, "foreign");
  const base = Date.parse("2026-05-01T00:00:00.000Z");
  const a = await seedTrigger(api, p.projectId, { status: "completed", attempts: 4 });
  triggerIdA = a;
  const b = await seedTrigger(api, p.projectId, { status: "completed", attempts: 3 });
  const rows: Array<{ id: string; at: number }> = [];
  // 7 executions over two triggers; the 2nd and 3rd share a createdAt.
  const specs: Array<[string, number, number, boolean]> = [
    [a, 1, 0, false],
    [b, 1, 1, true],
    [a, 2, 2, false],
    [a, 3, 2, true],
    [b, 2, 3, false],
    [a, 4, 4, false],
    [b, 3, 5, true],
  ];
  for (const [trigger, attempt, secs, dead] of specs) {
    const createdAt = new Date(base + secs * 1000);
    const id = await seedExecution(api, p.projectId, trigger, {
      attemptNumber: attempt,
      createdAt,
      completedAt: createdAt,
      responseStatus: dead ? 500 : 200,
      isDeadLetter: dead,
    });
    rows.push({ id, at: createdAt.getTime() });
    if (trigger === a) triggerA.push(id);
    if (dead) deadLetters.push(id);
  }
  rows.sort((x, y) => y.at - x.at || (x.id < y.id ? 1 : -1));
  order.push(...rows.map((r) => r.id));
  const theirs = await seedTrigger(api, foreign.projectId, { status: "completed", attempts: 1 });
  await seedExecution(api, foreign.projectId, theirs, { attemptNumber: 1, isDeadLetter: true, responseStatus: 500 });
});
afterAll(() => api.close());

async function allPages(session: TestSession, path: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < 50; i++) {
    const sep = path.includes("?") ? "&" : "?";
    const page: any = await session.get(cursor === null ? path : `${path}${sep}cursor=${cursor}`);
    ids.push(...page.executions.map((e: { id: string }) => e.id));
    cursor = page.nextCursor;
    if (cursor === null) break;
  }
  return ids;
}

describe("GET /executions", () => {
  it("newest first by createdAt then id, one page by default", async () => {
    const page = await p.session.get("/executions");
    expect(page.executions.map((e: any) => e.id)).toEqual(order);
    expect(page.nextCursor).toBeNull();
    expect(Object.keys(page.executions[0]).sort()).toEqual(
      ["attemptNumber", "completedAt", "errorMessage", "id", "isDeadLetter", "plannedAt", "responseBody", "responseHeaders", "responseSize", "responseStatus", "startedAt", "status", "triggerId", "triggeredBy"],
    );
  });

  it("pages across boundaries", async () => {
    for (const limit of [1, 2, 3, 6, 7]) expect(await allPages(p.session, `/executions?limit=${limit}`), `limit ${limit}`).toEqual(order);
  });

  it("filters by trigger", async () => {
    const got = await allPages(p.session, `/executions?triggerId=${triggerIdA}&limit=2`);
    expect(got).toEqual(order.filter((id) => triggerA.includes(id)));
  });

  it("deadLetterOnly=true lists only dead letters; TRUE, 1, yes or an empty value do not filter", async () => {
    const only = await allPages(p.session, "/executions?deadLetterOnly=true&limit=2");
    expect(only).toEqual(order.filter((id) => deadLetters.includes(id)));
    for (const value of ["TRUE", "True", "1", "yes", "", "false"]) {
      expect(await allPages(p.session, `/executions?deadLetterOnly=${value}`), value).toEqual(order);
    }
    // Given twice is not the exact value `true` either.
    expect(await allPages(p.session, "/executions?deadLetterOnly=true&deadLetterOnly=true")).toEqual(order);
  });

  it("combines the trigger and dead-letter filters", async () => {
    const got = await allPages(p.session, `/executions?triggerId=${triggerIdA}&deadLetterOnly=true`);
    expect(got).toEqual(order.filter((id) => triggerA.includes(id) && deadLetters.includes(id)));
  });

  it("400 for a malformed triggerId, limit or cursor", async () => {
    const cases: Array<[string, string]> = [
      ["triggerId=abc", "Invalid triggerId: abc"],
      ["limit=501", "Invalid limit: 501 (an integer from 1 to 500)"],
      ["limit=0", "Invalid limit: 0 (an integer from 1 to 500)"],
      ["cursor=%%%", "Invalid cursor"],
      ["cursor=", ""],
    ];
    for (const [query, message] of cases) {
      const res = await p.session.call("GET", `/executions?${query}`);
      if (message === "") {
        expect(res.status, query).toBe(200);
        continue;
      }
      expect(res.status, query).toBe(400);
      expect(res.json()).toEqual({ _tag: "BadRequest", message });
    }
  });

  it("sees only the signed-in user's project", async () => {
    const theirs = await allPages(foreign.session, "/executions");
    expect(theirs).toHaveLength(1);
    expect(theirs.some((id) => order.includes(id))).toBe(false);
    const exec = (await foreign.session.get("/executions")).executions[0];
    expect(await allPages(p.session, `/executions?triggerId=${exec.triggerId}`)).toEqual([]);
    expect(await allPages(p.session, "/executions?deadLetterOnly=true")).not.toContain(exec.id);
  });
});
