// The dashboard's data endpoints read with an API key instead of a session:
// `ttr-api-key` or `Authorization: Bearer`, answers identical to a session's,
// scoped to the key's project; /auth/* stay session-only.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type TestApi } from "../../../test/support/api.js";
import { otherProject, seedExecution, seedTrigger, signIn, type TestSession } from "../../../test/support/session.js";

let api: TestApi;
let s: TestSession;
let triggerId: string;
beforeAll(async () => {
  api = await startApi();
  s = await signIn(api);
  triggerId = await seedTrigger(api, api.projectId, { status: "completed", attempts: 1, tags: ["reads"] });
  await seedExecution(api, api.projectId, triggerId, { attemptNumber: 1, completedAt: new Date(), responseStatus: 500, isDeadLetter: true });
});
afterAll(() => api.close());

const READS = () => [
  "/triggers",
  "/triggers?tag=reads&limit=5",
  `/triggers/${triggerId}`,
  "/executions",
  `/executions?triggerId=${triggerId}&deadLetterOnly=true`,
  "/project",
];

describe("reading with an API key", () => {
  it("every read answers with a key exactly as with a session, through ttr-api-key and through Bearer", async () => {
    for (const path of READS()) {
      const bySession = await s.call("GET", path);
      const byKey = await api.call("GET", path, { "ttr-api-key": api.apiKey });
      const byBearer = await api.call("GET", path, { Authorization: `Bearer ${api.apiKey}` });
      expect(bySession.status, path).toBe(200);
      expect(byKey.status, path).toBe(200);
      expect(byBearer.status, path).toBe(200);
      expect(byKey.json(), path).toEqual(bySession.json());
      expect(byBearer.json(), path).toEqual(bySession.json());
      expect(byKey.headers["content-type"]).toMatch(/^application\/json/);
      // stored requests may hold a target's credentials: never cached
      for (const res of [bySession, byKey, byBearer]) {
        expect([res.headers["cache-control"], res.headers["x-content-type-options"]], path).toEqual(["no-store", "nosniff"]);
      }
    }
    // per-minute buckets are bounded by the call's minute: compare shapes and counts
    const stats = await api.call("GET", "/stats?minutes=5", { "ttr-api-key": api.apiKey });
    expect(stats.status).toBe(200);
    expect(stats.json().buckets).toHaveLength(5);
  });

  it("the trigger list with a key holds the seeded trigger, and a dead letter among the executions", async () => {
    const list = (await api.call("GET", "/triggers?tag=reads", { "ttr-api-key": api.apiKey })).json();
    expect(list.triggers.map((t: { id: string }) => t.id)).toEqual([triggerId]);
    const dead = (await api.call("GET", "/executions?deadLetterOnly=true", { "ttr-api-key": api.apiKey })).json();
    expect(dead.executions).toHaveLength(1);
    expect(dead.executions[0]).toMatchObject({ triggerId, isDeadLetter: true, responseStatus: 500 });
  });

  it("a key sees only its own project: another project's trigger is not found, its lists are its own", async () => {
    const other = await otherProject(api, "reader-other");
    const res = await api.call("GET", `/triggers/${triggerId}`, { "ttr-api-key": other.apiKey });
    expect(res.status).toBe(404);
    expect(res.json()).toEqual({ _tag: "NotFound", message: "Trigger not found" });
    expect((await api.call("GET", "/triggers", { "ttr-api-key": other.apiKey })).json().triggers).toEqual([]);
    expect((await api.call("GET", "/project", { "ttr-api-key": other.apiKey })).json().project.id).toBe(other.projectId);
  });

  it("an unknown key is 401 Invalid api key, even beside a live session; no credential at all is 401 Unauthorized", async () => {
    const unknown = "ttr_" + "x".repeat(43);
    for (const headers of [{ "ttr-api-key": unknown }, { Authorization: `Bearer ${unknown}` }, { "ttr-api-key": unknown, Cookie: s.cookie }]) {
      const res = await api.call("GET", "/triggers", headers);
      expect(res.status).toBe(401);
      expect(res.json()).toEqual({ _tag: "Unauthorized", message: "Invalid api key" });
    }
    for (const headers of [{}, { "ttr-api-key": "" }, { Authorization: "Basic abc" }]) {
      const res = await api.call("GET", "/executions", headers);
      expect(res.status).toBe(401);
      expect(res.json()).toEqual({ _tag: "Unauthorized", message: "Unauthorized" });
    }
  });

  it("an empty key beside a live session reads as the session", async () => {
    const res = await api.call("GET", "/project", { "ttr-api-key": "", Cookie: s.cookie });
    expect(res.status).toBe(200);
    expect(res.json().project.id).toBe(api.projectId);
  });

  it("Replay now with a key: 202 and a new planned execution; a key from any origin needs no cross-site check", async () => {
    const id = await seedTrigger(api, api.projectId, { status: "completed", attempts: 1 });
    await seedExecution(api, api.projectId, id, { attemptNumber: 1, completedAt: new Date(), responseStatus: 200 });
    const res = await api.call("POST", `/triggers/${id}/replay`, { "ttr-api-key": api.apiKey, Origin: "https://elsewhere.example" });
    expect(res.status).toBe(202);
    expect(res.json().execution).toMatchObject({ triggerId: id, attemptNumber: 2, triggeredBy: "replay", status: "planned" });
  });

  it("signing out still needs a session: a key alone is 401", async () => {
    const res = await api.call("POST", "/auth/logout", { "ttr-api-key": api.apiKey });
    expect(res.status).toBe(401);
  });
});
