// GET /project and GET /stats (docs/quota.md, docs/api/dashboard-api.md), and project isolation.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type TestApi } from "../../../test/support/api.js";
import { otherProject, seedExecution, seedTrigger, signIn, type TestSession } from "../../../test/support/session.js";

let api: TestApi;
let s: TestSession;
beforeAll(async () => {
  api = await startApi({ quota: 1234 });
  s = await signIn(api);
});
afterAll(() => api.close());

const month = (d: Date) => d.toISOString().slice(0, 7);

describe("GET /project", () => {
  it("0 used in a month without usage, then the units /schedule used this UTC month", async () => {
    expect(await s.get("/project")).toEqual({ project: { id: api.projectId, name: "test", monthlyQuota: 1234, usedThisMonth: 0 } });
    for (let i = 0; i < 2; i++) {
      const res = await api.call("POST", "/schedule", { "ttr-api-key": api.apiKey, "ttr-url": "http://127.0.0.1:9/", "ttr-scheduled-at": "now | add 1h" });
      expect(res.status).toBe(200);
    }
    expect((await s.get("/project")).project.usedThisMonth).toBe(2);
  });

  it("ignores other months and other projects", async () => {
    const other = await otherProject(api, "usage");
    await api.db.$executeRawUnsafe(`INSERT INTO project_usage (project_id, month, used) VALUES ($1::uuid, '2000-01', 77), ($2::uuid, $3, 5)`, other.projectId, api.projectId, "1999-12");
    await api.db.$executeRawUnsafe(`INSERT INTO project_usage (project_id, month, used) VALUES ($1::uuid, $2, 9)`, other.projectId, month(new Date()));
    expect((await s.get("/project")).project.usedThisMonth).toBe(2);
    expect(await other.session.get("/project")).toEqual({ project: { id: other.projectId, name: "usage", monthlyQuota: 1000, usedThisMonth: 9 } });
  });

  it("401 without a session", async () => {
    const res = await api.call("GET", "/project");
    expect(res.status).toBe(401);
    expect(res.json()).toEqual({ _tag: "Unauthorized", message: "Unauthorized" });
  });
});

describe("GET /stats", () => {
  const minuteOf = (ms: number) => new Date(Math.floor(ms / 60_000) * 60_000).toISOString();

  it("one bucket per minute, oldest first, ending with the current minute; 60 by default", async () => {
    const before = Date.now();
    const { buckets } = await s.get("/stats");
    expect(buckets).toHaveLength(60);
    const minutes = buckets.map((b: any) => Date.parse(b.minute));
    for (let i = 1; i < minutes.length; i++) expect(minutes[i] - minutes[i - 1]).toBe(60_000);
    expect([minuteOf(before), minuteOf(Date.now())]).toContain(buckets[59].minute);
    expect(buckets[0]).toEqual({ minute: buckets[0].minute, success: 0, httpFailure: 0, networkFailure: 0, deadLetters: 0 });
    expect((await s.get("/stats?minutes=1")).buckets).toHaveLength(1);
    expect((await s.get("/stats?minutes=1440")).buckets).toHaveLength(1440);
  });

  it("counts completed attempts by outcome in the minute they completed", async () => {
    const p = await otherProject(api, "stats");
    const trigger = await seedTrigger(api, p.projectId, { status: "completed", attempts: 20 });
    const nowMinute = Math.floor(Date.now() / 60_000) * 60_000;
    const threeAgo = nowMinute - 3 * 60_000;
    const tenAgo = nowMinute - 10 * 60_000;
    let attempt = 0;
    const add = (completedAt: number | null, fields: Record<string, unknown>) =>
      seedExecution(api, p.projectId, trigger, {
        attemptNumber: ++attempt,
        status: completedAt === null ? "started" : "complete",
        completedAt: completedAt === null ? null : new Date(completedAt),
        ...fields,
      });
    await add(threeAgo + 1_000, { responseStatus: 200 });
    await add(threeAgo + 59_999, { responseStatus: 204 });
    await add(threeAgo + 30_000, { responseStatus: 500, isDeadLetter: true });
    await add(threeAgo + 30_000, { responseStatus: 302 });
    await add(threeAgo + 30_000, { responseStatus: 404 });
    await add(threeAgo + 5_000, { errorMessage: "Transport error (POST http://127.0.0.1:9/)", isDeadLetter: true });
    await add(threeAgo + 5_000, { errorMessage: "Executor died (status=started past reap_after)" });
    await add(tenAgo, { responseStatus: 200 });
    await add(tenAgo - 60 * 60_000, { responseStatus: 200 }); // outside a 60-minute window
    await add(null, { responseStatus: null }); // still in flight
    // Another project's attempt in the same minute is not counted.
    const theirs = await seedTrigger(api, api.projectId, { status: "completed", attempts: 1 });
    await seedExecution(api, api.projectId, theirs, { attemptNumber: 1, completedAt: new Date(threeAgo + 2_000), responseStatus: 200 });

    const { buckets } = await p.session.get("/stats");
    const at = (ms: number) => buckets.find((b: any) => b.minute === new Date(ms).toISOString());
    expect(at(threeAgo)).toEqual({ minute: new Date(threeAgo).toISOString(), success: 2, httpFailure: 3, networkFailure: 2, deadLetters: 2 });
    expect(at(tenAgo)).toMatchObject({ success: 1, httpFailure: 0, networkFailure: 0, deadLetters: 0 });
    const total = buckets.reduce((n: number, b: any) => n + b.success + b.httpFailure + b.networkFailure, 0);
    expect(total).toBe(8);
    const { buckets: short } = await p.session.get("/stats?minutes=5");
    expect(short).toHaveLength(5);
    expect(short.reduce((n: number, b: any) => n + b.success, 0)).toBe(Date.now() - threeAgo < 5 * 60_000 ? 2 : 0);
  });

  it("400 for a minutes value that is not an integer from 1 to 1440", async () => {
    for (const value of ["0", "1441", "-5", "1.5", "abc", "1e3"]) {
      const res = await s.call("GET", `/stats?minutes=${value}`);
      expect(res.status, value).toBe(400);
      expect(res.json()).toEqual({ _tag: "BadRequest", message: `Invalid minutes: ${value} (an integer from 1 to 1440)` });
    }
  });
});

describe("isolation between projects", () => {
  it("a session sees its own project only, on every endpoint", async () => {
    const a = await otherProject(api, "iso-a");
    const b = await otherProject(api, "iso-b");
    const ta = await seedTrigger(api, a.projectId, { status: "completed", attempts: 1 });
    await seedExecution(api, a.projectId, ta, { attemptNumber: 1, completedAt: new Date(), responseStatus: 500, isDeadLetter: true });
    const tb = await seedTrigger(api, b.projectId, { status: "completed", attempts: 1 });

    expect((await a.session.get("/triggers")).triggers.map((t: any) => t.id)).toEqual([ta]);
    expect((await b.session.get("/triggers")).triggers.map((t: any) => t.id)).toEqual([tb]);
    expect((await a.session.get("/executions?deadLetterOnly=true")).executions).toHaveLength(1);
    expect((await b.session.get("/executions")).executions).toHaveLength(0);
    expect((await b.session.call("GET", `/triggers/${ta}`)).status).toBe(404);
    expect((await b.session.call("POST", `/triggers/${ta}/replay`)).status).toBe(404);
    expect((await b.session.get("/project")).project.id).toBe(b.projectId);
    const stats = (await b.session.get("/stats?minutes=2")).buckets;
    expect(stats.every((x: any) => x.httpFailure === 0 && x.deadLetters === 0)).toBe(true);
  });
});
