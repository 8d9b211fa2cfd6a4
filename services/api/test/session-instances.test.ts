// GET /triggers?generatorId=: one recurring trigger's instances, for the
// dashboard's recurring-trigger page (docs/api/dashboard-api.md otherwise).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type TestApi } from "../../../test/support/api.js";
import { instancesOf } from "../../../test/support/rows.js";
import { otherProject, seedTrigger, signIn, type TestSession } from "../../../test/support/session.js";

let api: TestApi;
let s: TestSession;
beforeAll(async () => {
  api = await startApi();
  s = await signIn(api);
});
afterAll(() => api.close());

async function generator(key: string): Promise<string> {
  const r = await api.call("POST", "/schedule", {
    "ttr-api-key": api.apiKey,
    "ttr-url": "http://127.0.0.1:9/cron",
    "ttr-scheduled-at": "cron(0 12 * * *)",
    "ttr-custom-key": key,
  });
  expect(r.status, r.text).toBe(200);
  return r.json().triggerId as string;
}

describe("GET /triggers?generatorId=", () => {
  it("lists only that generator's instances, newest first, paged, with other filters", async () => {
    const genId = await generator("inst-a");
    const other = await generator("inst-b");
    const [pending] = await instancesOf(api.db, genId);
    const past = [];
    for (let i = 1; i <= 3; i++) {
      past.push(await seedTrigger(api, api.projectId, { generatorId: genId, status: "completed", createdAt: new Date(Date.now() - i * 60_000) }));
    }
    await seedTrigger(api, api.projectId, { status: "completed" });

    const all = await s.get(`/triggers?generatorId=${genId}`);
    expect(all.triggers.map((t: { id: string }) => t.id)).toEqual([pending!.id, ...past]);
    expect(all.triggers.every((t: { kind: string; generatorId: string }) => t.kind === "job" && t.generatorId === genId)).toBe(true);
    expect(all.nextCursor).toBeNull();

    const first = await s.get(`/triggers?generatorId=${genId}&limit=2`);
    expect(first.triggers.map((t: { id: string }) => t.id)).toEqual([pending!.id, past[0]]);
    const second = await s.get(`/triggers?generatorId=${genId}&limit=2&cursor=${first.nextCursor}`);
    expect(second.triggers.map((t: { id: string }) => t.id)).toEqual(past.slice(1));
    expect(second.nextCursor).toBeNull();

    const completed = await s.get(`/triggers?generatorId=${genId}&status=completed`);
    expect(completed.triggers.map((t: { id: string }) => t.id)).toEqual(past);
    expect((await s.get(`/triggers?generatorId=${genId}&kind=generator`)).triggers).toEqual([]);
    expect((await s.get(`/triggers?generatorId=${other}`)).triggers).toHaveLength(1);
  });

  it("sees only the session's project and rejects a malformed ID", async () => {
    const genId = await generator("inst-c");
    const stranger = await otherProject(api);
    expect((await stranger.session.get(`/triggers?generatorId=${genId}`)).triggers).toEqual([]);
    const bad = await s.call("GET", "/triggers?generatorId=nope");
    expect(bad.status).toBe(400);
    expect(bad.json()).toEqual({ _tag: "BadRequest", message: "Invalid generatorId: nope" });
  });
});
