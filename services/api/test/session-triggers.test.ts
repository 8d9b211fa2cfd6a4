// GET /triggers and GET /triggers/<id> (docs/api/dashboard-api.md).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type TestApi } from "../../../test/support/api.js";
import { instancesOf } from "../../../test/support/rows.js";
import { otherProject, seedExecution, seedGenerator, seedTrigger, signIn, type TestSession } from "../../../test/support/session.js";

let api: TestApi;
let s: TestSession;
beforeAll(async () => {
  api = await startApi();
  s = await signIn(api);
});
afterAll(() => api.close());

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const TRIGGER_KEYS = ["body", "createdAt", "cronExpr", "customKey", "generatorId", "headers", "id", "kind", "method", "scheduledAt", "status", "tags", "title", "tz", "updatedAt", "url"];

function schedule(headers: Record<string, string | string[]>, body?: string) {
  return api
    .call("POST", "/schedule", { "ttr-api-key": api.apiKey, "ttr-url": "http://127.0.0.1:9/hook", ...headers }, body)
    .then((r) => {
      expect(r.status).toBe(200);
      return r.json().triggerId as string;
    });
}

/** Every page of a list, following nextCursor. */
async function allPages(session: TestSession, path: string, key = "triggers"): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let pages = 0;
  let cursor: string | null = null;
  do {
    const sep = path.includes("?") ? "&" : "?";
    const page: any = await session.get(cursor === null ? path : `${path}${sep}cursor=${encodeURIComponent(cursor)}`);
    ids.push(...page[key].map((t: { id: string }) => t.id));
    cursor = page.nextCursor;
    pages++;
  } while (cursor !== null && pages < 100);
  return { ids, pages };
}

describe("Trigger JSON", () => {
  it("a /schedule one-shot: headers as an object, body as text, every field present", async () => {
    const id = await schedule(
      { "ttr-scheduled-at": "2099-01-02T03:04:05.678Z", "ttr-title": "Nightly", "ttr-tags": "a,b", "ttr-custom-key": "k1", "X-Rep": ["1", "2"], "Content-Type": "text/plain" },
      "héllo",
    );
    const { trigger, executions } = await s.get(`/triggers/${id}`);
    expect(Object.keys(trigger).sort()).toEqual(TRIGGER_KEYS);
    expect(trigger).toMatchObject({
      id,
      kind: "job",
      status: "registered",
      customKey: "k1",
      title: "Nightly",
      url: "http://127.0.0.1:9/hook",
      method: "POST",
      body: "héllo",
      tags: ["a", "b"],
      scheduledAt: "2099-01-02T03:04:05.000Z",
      cronExpr: null,
      tz: null,
      generatorId: null,
    });
    expect(trigger.headers).toMatchObject({ "X-Rep": "1, 2", "Content-Type": "text/plain" });
    expect(trigger.createdAt).toMatch(ISO_MS);
    expect(trigger.updatedAt).toMatch(ISO_MS);
    expect(executions).toEqual([]);
  });

  it("a body-less trigger has body null", async () => {
    const id = await schedule({ "ttr-scheduled-at": "now | add 1h" });
    expect((await s.get(`/triggers/${id}`)).trigger.body).toBeNull();
  });

  it("a body that starts with a UTF-8 byte order mark keeps it", async () => {
    const id = await schedule({ "ttr-scheduled-at": "now | add 1h" }, "\uFEFFhello");
    expect((await s.get(`/triggers/${id}`)).trigger.body).toBe("\uFEFFhello");
  });

  it("a recurring trigger and its instance", async () => {
    const genId = await schedule({ "ttr-scheduled-at": "cron(0 12 * * *)", "ttr-custom-key": "daily", "ttr-tags": "cron", "ttr-title": "Hidden daily title" });
    const [instance] = await instancesOf(api.db, genId);
    const { trigger, executions } = await s.get(`/triggers/${genId}`);
    expect(Object.keys(trigger).sort()).toEqual(TRIGGER_KEYS);
    expect(trigger).toMatchObject({
      id: genId,
      kind: "generator",
      status: "active",
      customKey: "daily",
      cronExpr: "0 12 * * *",
      tz: "UTC",
      generatorId: null,
      tags: ["cron"],
      scheduledAt: instance!.scheduledAt.toISOString(),
      title: null, // stored, never shown (docs/concepts.md)
    });
    expect(JSON.stringify((await s.get("/triggers?kind=generator")).triggers)).not.toContain("Hidden daily title");
    expect(executions).toEqual([]);
    const inst = (await s.get(`/triggers/${instance!.id}`)).trigger;
    expect(inst).toMatchObject({ kind: "job", status: "registered", generatorId: genId, customKey: null, title: null, cronExpr: null, tz: null });

    // Cancelled: no pending instance, so no scheduledAt.
    expect((await api.call("DELETE", "/cancel", { "ttr-api-key": api.apiKey, "ttr-trigger-id": genId })).status).toBe(204);
    expect((await s.get(`/triggers/${genId}`)).trigger).toMatchObject({ status: "cancelled", scheduledAt: null });
  });
});

describe("GET /triggers/<id>", () => {
  it("lists the executions by attempt number, in the Execution shape", async () => {
    const id = await seedTrigger(api, api.projectId, { status: "completed", attempts: 3 });
    const t0 = new Date("2026-01-01T00:00:00.000Z");
    for (const n of [3, 1, 2]) {
      await seedExecution(api, api.projectId, id, {
        attemptNumber: n,
        triggeredBy: n === 1 ? "scheduler" : "retry",
        plannedAt: new Date(t0.getTime() + n * 1000),
        startedAt: new Date(t0.getTime() + n * 1000 + 10),
        completedAt: new Date(t0.getTime() + n * 1000 + 20),
        responseStatus: n === 3 ? 200 : 503,
        responseHeaders: { "content-type": "text/plain" },
        responseBody: n === 3 ? "ok" : "",
        responseSize: n === 3 ? 2 : 0,
      });
    }
    const { executions } = await s.get(`/triggers/${id}`);
    expect(executions.map((e: any) => e.attemptNumber)).toEqual([1, 2, 3]);
    expect(Object.keys(executions[0]).sort()).toEqual(
      ["attemptNumber", "completedAt", "errorMessage", "id", "isDeadLetter", "plannedAt", "responseBody", "responseHeaders", "responseSize", "responseStatus", "startedAt", "status", "triggerId", "triggeredBy"],
    );
    expect(executions[2]).toMatchObject({
      triggerId: id,
      triggeredBy: "retry",
      status: "complete",
      plannedAt: "2026-01-01T00:00:03.000Z",
      startedAt: "2026-01-01T00:00:03.010Z",
      completedAt: "2026-01-01T00:00:03.020Z",
      responseStatus: 200,
      responseHeaders: { "content-type": "text/plain" },
      responseBody: "ok",
      responseSize: 2,
      errorMessage: null,
      isDeadLetter: false,
    });
  });

  it("reads an ID written in uppercase, as /schedule and /cancel do", async () => {
    const id = await seedTrigger(api, api.projectId, { status: "completed", attempts: 1 });
    await seedExecution(api, api.projectId, id, { attemptNumber: 1, triggeredBy: "scheduler", responseStatus: 200 });
    const gen = await seedGenerator(api, api.projectId);
    const upper = await s.get(`/triggers/${id.toUpperCase()}`);
    expect(upper.trigger.id).toBe(id);
    expect(upper.executions).toHaveLength(1);
    expect((await s.get(`/triggers/${gen.toUpperCase()}`)).trigger).toMatchObject({ id: gen, kind: "generator" });
  });

  it("404 Trigger not found for an unknown, malformed or foreign ID", async () => {
    const other = await otherProject(api, "foreign");
    const theirs = await seedTrigger(api, other.projectId);
    const theirGen = await seedGenerator(api, other.projectId);
    for (const id of ["00000000-0000-4000-8000-000000000000", "nope", theirs, theirGen]) {
      const res = await s.call("GET", `/triggers/${id}`);
      expect(res.status).toBe(404);
      expect(res.json()).toEqual({ _tag: "NotFound", message: "Trigger not found" });
    }
    expect((await other.session.get(`/triggers/${theirs}`)).trigger.id).toBe(theirs);
  });
});

describe("GET /triggers", () => {
  let p: { projectId: string; session: TestSession };
  const ids: Record<string, string> = {};
  const order: string[] = [];

  // 12 rows, newest first in `order`: jobs and generators interleaved, three
  // pairs sharing a createdAt (two jobs, two generators, a job and a
  // generator) so the id decides.
  beforeAll(async () => {
    p = await otherProject(api, "listing");
    const base = Date.parse("2026-03-01T00:00:00.000Z");
    const specs: Array<[string, "job" | "generator", Record<string, unknown>, number]> = [
      ["j1", "job", { status: "registered", tags: ["red"], customKey: "alpha" }, 12],
      ["g1", "generator", { status: "active", tags: ["red"], customKey: "beta" }, 11],
      ["j2", "job", { status: "completed", tags: ["blue"] }, 10],
      ["j3", "job", { status: "completed", tags: ["red", "blue"] }, 10],
      ["g2", "generator", { status: "cancelled", tags: ["blue"] }, 9],
      ["j4", "job", { status: "cancelled" }, 9], // ties with g2 across the two tables
      ["j5", "job", { status: "retrying", customKey: "alpha" }, 7],
      ["g3", "generator", { status: "active" }, 6],
      ["g4", "generator", { status: "active" }, 6],
      ["j6", "job", { status: "queued" }, 5],
      ["j7", "job", { status: "running", tags: ["red"] }, 4],
      ["j8", "job", { status: "skipped" }, 3],
    ];
    const keyed: Array<{ name: string; at: number; id: string }> = [];
    for (const [name, kind, fields, secs] of specs) {
      const createdAt = new Date(base + secs * 1000);
      const id = kind === "job" ? await seedTrigger(api, p.projectId, { ...fields, createdAt }) : await seedGenerator(api, p.projectId, { ...fields, createdAt });
      ids[name] = id;
      keyed.push({ name, at: createdAt.getTime(), id });
    }
    keyed.sort((a, b) => b.at - a.at || (a.id < b.id ? 1 : -1));
    order.push(...keyed.map((k) => k.id));
  });

  const names = (list: string[]) => list.map((id) => Object.keys(ids).find((n) => ids[n] === id));

  it("lists jobs and generators together, newest first by createdAt then id", async () => {
    const page = await p.session.get("/triggers");
    expect(page.triggers.map((t: any) => t.id)).toEqual(order);
    expect(page.nextCursor).toBeNull();
    expect(page.triggers.find((t: any) => t.id === ids.g1).kind).toBe("generator");
  });

  it("pages across boundaries with an opaque cursor, for every page size", async () => {
    for (const limit of [1, 2, 3, 5, 11, 12]) {
      const { ids: got, pages } = await allPages(p.session, `/triggers?limit=${limit}`);
      expect(got, `limit ${limit}`).toEqual(order);
      expect(pages).toBe(Math.ceil(order.length / limit));
    }
    const first = await p.session.get("/triggers?limit=4");
    expect(first.triggers).toHaveLength(4);
    expect(typeof first.nextCursor).toBe("string");
  });

  it("filters by status, kind, tag and custom key, combined, with pagination", async () => {
    const cases: Array<[string, string[]]> = [
      ["status=completed", ["j2", "j3"]],
      ["status=active", ["g1", "g3", "g4"]],
      ["status=cancelled", ["g2", "j4"]],
      ["status=cancelled&kind=job", ["j4"]],
      ["kind=generator", ["g1", "g2", "g3", "g4"]],
      ["kind=job&status=active", []],
      ["tag=red", ["j1", "g1", "j3", "j7"]],
      ["tag=red&kind=job", ["j1", "j3", "j7"]],
      ["tag=blue&status=cancelled", ["g2"]],
      ["customKey=alpha", ["j1", "j5"]],
      ["customKey=beta&tag=red", ["g1"]],
      ["tag=none", []],
      ["status=&kind=&tag=&customKey=", Object.keys(ids)],
    ];
    for (const [query, expected] of cases) {
      const expectedIds = order.filter((id) => expected.map((n) => ids[n]).includes(id));
      const { ids: got } = await allPages(p.session, `/triggers?${query}&limit=2`);
      expect(names(got), query).toEqual(names(expectedIds));
    }
  });

  it("limit defaults to 50", async () => {
    const q = await otherProject(api, "many");
    for (let i = 0; i < 55; i++) await seedTrigger(api, q.projectId, { createdAt: new Date(Date.parse("2026-01-01T00:00:00Z") + i * 1000) });
    const page = await q.session.get("/triggers");
    expect(page.triggers).toHaveLength(50);
    const rest = await q.session.get(`/triggers?cursor=${page.nextCursor}`);
    expect(rest.triggers).toHaveLength(5);
    expect(rest.nextCursor).toBeNull();
    expect((await q.session.get("/triggers?limit=500")).triggers).toHaveLength(55);
  });

  it("400 for a tag or custom key filter holding a NUL, which no trigger can carry", async () => {
    for (const query of ["tag=a%00", "customKey=k%00"]) {
      const res = await s.call("GET", `/triggers?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.json()).toEqual({ _tag: "BadRequest", message: "Text holding a NUL character or an unpaired surrogate is not accepted" });
    }
  });

  it("400 for an unknown status or kind, a bad limit or cursor, a repeated parameter", async () => {
    const cases: Array<[string, string]> = [
      ["status=done", "Invalid status: done"],
      ["status=Completed", "Invalid status: Completed"],
      ["kind=cron", "Invalid kind: cron (job or generator)"],
      ["limit=0", "Invalid limit: 0 (an integer from 1 to 500)"],
      ["limit=501", "Invalid limit: 501 (an integer from 1 to 500)"],
      ["limit=2.5", "Invalid limit: 2.5 (an integer from 1 to 500)"],
      ["limit=-1", "Invalid limit: -1 (an integer from 1 to 500)"],
      ["limit=ten", "Invalid limit: ten (an integer from 1 to 500)"],
      ["cursor=garbage", "Invalid cursor"],
      [`cursor=${Buffer.from("2026-01-01T00:00:00.000Z|not-a-uuid").toString("base64url")}`, "Invalid cursor"],
      [`cursor=${Buffer.from("yesterday|00000000-0000-4000-8000-000000000000").toString("base64url")}`, "Invalid cursor"],
      [`cursor=${Buffer.from("-271821-04-20T00:00:00.000Z|00000000-0000-4000-8000-000000000000").toString("base64url")}`, "Invalid cursor"],
      [`cursor=${Buffer.from("0000-01-01T00:00:00.000Z|00000000-0000-4000-8000-000000000000").toString("base64url")}`, "Invalid cursor"],
      ["status=queued&status=running", "Query parameter status must be given once"],
    ];
    for (const [query, message] of cases) {
      const res = await p.session.call("GET", `/triggers?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.json()).toEqual({ _tag: "BadRequest", message });
    }
  });

  it("shows only the signed-in user's project", async () => {
    const mine = (await allPages(s, "/triggers?limit=500")).ids;
    expect(mine.some((id) => Object.values(ids).includes(id))).toBe(false);
    expect(mine.length).toBeGreaterThan(0);
  });
});
