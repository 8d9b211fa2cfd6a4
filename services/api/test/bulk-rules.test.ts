// docs/api/declare-and-bulk.md: upserts match keys across the whole
// project and add no tag; cancels by string, id, customKey or tag with their
// own rules; targets that match nothing are skipped; the response shape.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type TestApi } from "../../../test/support/api.js";
import { executionsOf } from "../../../test/support/rows.js";
import { seedExecution, seedGenerator, seedTrigger } from "../../../test/support/session.js";
import { inHours, instances, jobRow, ok, post, statusOf } from "./declare-support.js";

let api: TestApi;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

const bulk = (body: unknown) => ok(post(api, "/bulk", body));
const T1 = inHours(24);
let n = 0;
const key = () => `bulk-${++n}`;

describe("upserts", () => {
  it("match a key across the whole project whatever the tags, and add no tag", async () => {
    const k = key();
    const declared = await ok(post(api, "/declare", { tag: "somewhere", items: [{ customKey: k, url: "http://a/", scheduledAt: T1 }] }));
    const out = await bulk({ upserts: [{ customKey: k, url: "http://b/", scheduledAt: T1, tags: ["x"] }] });
    expect(out).toEqual({
      upserts: [{ operation: "updated", customKey: k, kind: "job", id: declared.operations[0].id, changedFields: ["url", "tags"] }],
      cancelled: [],
      summary: { added: 0, updated: 1, unchanged: 0, skipped: 0, cancelled: 0 },
    });
    expect((await jobRow(api, declared.operations[0].id)).tags).toEqual(["x"]);
  });

  it("added, skipped, unchanged, in request order, keyless ones added every time", async () => {
    const [a, b] = [key(), key()];
    const items = [{ customKey: a, url: "http://a/", scheduledAt: T1 }, { url: "http://keyless/" }, { customKey: b, url: "http://b/", scheduledAt: "2020-01-01T00:00:00Z" }];
    const first = await bulk({ upserts: items });
    expect(first.upserts.map((o: any) => o.operation)).toEqual(["added", "added", "skipped"]);
    const second = await bulk({ upserts: items });
    expect(second.upserts.map((o: any) => o.operation)).toEqual(["unchanged", "added", "unchanged"]);
    expect(second.summary).toEqual({ added: 1, updated: 0, unchanged: 2, skipped: 0, cancelled: 0 });
    expect(await statusOf(api, first.upserts[1].id)).toBe("registered");
    const missed = await bulk({ upserts: [{ customKey: key(), url: "http://m/", scheduledAt: "2020-01-01T00:00:00Z" }], runMissed: true });
    expect(missed.upserts[0].operation).toBe("added");
  });

  it("a queued trigger with the key is not matched: a new one is created and both fire", async () => {
    const k = key();
    const queued = await seedTrigger(api, api.projectId, { customKey: k, status: "queued" });
    const out = await bulk({ upserts: [{ customKey: k, url: "http://q/" }] });
    expect(out.upserts[0].operation).toBe("added");
    expect(await statusOf(api, queued)).toBe("queued");
  });

  it("a retrying trigger that differs is replaced: new id, old one and its planned retry cancelled", async () => {
    const k = key();
    const old = await seedTrigger(api, api.projectId, { customKey: k, status: "retrying", attempts: 1 });
    await seedExecution(api, api.projectId, old, { attemptNumber: 2, triggeredBy: "retry", status: "planned" });
    const out = await bulk({ upserts: [{ customKey: k, url: "http://new/", scheduledAt: T1 }] });
    expect(out.upserts[0]).toMatchObject({ operation: "updated", kind: "job" });
    expect(out.upserts[0].id).not.toBe(old);
    expect(out.cancelled).toEqual([]);
    expect(await statusOf(api, old)).toBe("cancelled");
    expect((await executionsOf(api.db, old))[0]!.status).toBe("cancelled");
    expect((await jobRow(api, out.upserts[0].id)).attempts).toBe(0);
  });

  it("kind switches: the old trigger is cancelled; a recurring one's queued instances still fire", async () => {
    const k = key();
    const gen = await seedGenerator(api, api.projectId, { customKey: k });
    const upcoming = await seedTrigger(api, api.projectId, { generatorId: gen });
    const queued = await seedTrigger(api, api.projectId, { generatorId: gen, status: "queued" });
    const toJob = await bulk({ upserts: [{ customKey: k, url: "http://j/", scheduledAt: T1 }] });
    expect(toJob.upserts[0]).toMatchObject({ operation: "updated", kind: "job", changedFields: ["kind:generator→job"] });
    expect([await statusOf(api, gen), await statusOf(api, upcoming), await statusOf(api, queued)]).toEqual(["cancelled", "cancelled", "queued"]);
    const toGen = await bulk({ upserts: [{ customKey: k, url: "http://j/", scheduledAt: "cron(0 * * * *)" }] });
    expect(toGen.upserts[0]).toMatchObject({ operation: "updated", kind: "generator", changedFields: ["kind:job→generator"] });
    expect(await statusOf(api, toJob.upserts[0].id)).toBe("cancelled");
    expect((await instances(api, toGen.upserts[0].id)).map((i) => i.status)).toEqual(["registered"]);
  });

  it("recurring: unchanged keeps its upcoming instance, a change replaces it", async () => {
    const k = key();
    const item = { customKey: k, url: "http://g/", scheduledAt: "cron(0 * * * *)" };
    const first = await bulk({ upserts: [item] });
    const id = first.upserts[0].id;
    const [upcoming] = await instances(api, id);
    expect((await bulk({ upserts: [item] })).upserts[0]).toEqual({ operation: "unchanged", customKey: k, kind: "generator", id });
    expect((await instances(api, id)).map((i) => [i.id, i.status])).toEqual([[upcoming!.id, "registered"]]);
    const changed = await bulk({ upserts: [{ ...item, scheduledAt: "cron(30 * * * *)" }] });
    expect(changed.upserts[0]).toEqual({ operation: "updated", customKey: k, kind: "generator", id, changedFields: ["cronExpr"] });
    expect((await instances(api, id)).map((i) => i.status)).toEqual(["cancelled", "registered"]);
  });
});

describe("cancels", () => {
  it("a string is an ID when one has it, otherwise a custom key", async () => {
    const [k1, k2] = [key(), key()];
    const byId = await seedTrigger(api, api.projectId, { customKey: k1 });
    const gen = await seedGenerator(api, api.projectId, { customKey: k2 });
    const upcoming = await seedTrigger(api, api.projectId, { generatorId: gen });
    const queuedInstance = await seedTrigger(api, api.projectId, { generatorId: gen, status: "queued" });
    const byKey = await seedTrigger(api, api.projectId, { customKey: byId });
    const out = await bulk({ cancels: [byId, k2] });
    expect(out.cancelled).toEqual([
      { id: byId, kind: "job", customKey: k1 },
      { id: gen, kind: "generator", customKey: k2 },
    ]);
    expect(out.summary).toEqual({ added: 0, updated: 0, unchanged: 0, skipped: 0, cancelled: 2 });
    // the trigger whose custom key equals that ID is not touched: the ID won
    expect(await statusOf(api, byKey)).toBe("registered");
    // by ID or key a recurring trigger goes with its upcoming instance; waiting instances still fire
    expect([await statusOf(api, upcoming), await statusOf(api, queuedInstance)]).toEqual(["cancelled", "queued"]);
  });

  it("by ID or key, queued, running and finished triggers are skipped without error", async () => {
    const k = key();
    const queued = await seedTrigger(api, api.projectId, { customKey: k, status: "queued" });
    const running = await seedTrigger(api, api.projectId, { status: "running" });
    const done = await seedGenerator(api, api.projectId, { status: "cancelled" });
    const out = await bulk({ cancels: [queued, { id: queued }, { id: running }, { id: done }, { customKey: k }, { id: "not-a-uuid" }, "nothing-here", { tag: "no-such-tag" }] });
    expect(out.cancelled).toEqual([]);
    expect([await statusOf(api, queued), await statusOf(api, running)]).toEqual(["queued", "running"]);
  });

  it("by customKey, every pending holder of the key: one-shots and recurring triggers", async () => {
    const k = key();
    const job = await seedTrigger(api, api.projectId, { customKey: k, status: "skipped", createdAt: new Date(Date.now() - 2000) });
    const retrying = await seedTrigger(api, api.projectId, { customKey: k, status: "retrying", createdAt: new Date(Date.now() - 1000) });
    await seedExecution(api, api.projectId, retrying, { attemptNumber: 2, triggeredBy: "retry", status: "planned" });
    const gen = await seedGenerator(api, api.projectId, { customKey: k });
    const out = await bulk({ cancels: [{ customKey: k }] });
    expect(out.cancelled.map((c: any) => c.id)).toEqual([job, retrying, gen]);
    expect((await executionsOf(api.db, retrying))[0]!.status).toBe("cancelled");
  });

  it("by tag: waiting triggers with the tag and every other one not running or finished, recurring ones too", async () => {
    const tag = `tag-${key()}`;
    const t0 = Date.now() - 10_000;
    const registered = await seedTrigger(api, api.projectId, { tags: [tag, "other"], createdAt: new Date(t0) });
    const queued = await seedTrigger(api, api.projectId, { tags: [tag], status: "queued", createdAt: new Date(t0 + 1) });
    const attempt = await seedExecution(api, api.projectId, queued, { attemptNumber: 1, status: "planned" });
    const retrying = await seedTrigger(api, api.projectId, { tags: [tag], status: "retrying", createdAt: new Date(t0 + 2) });
    const gen = await seedGenerator(api, api.projectId, { tags: [tag], customKey: "tagged-gen" });
    const queuedInstance = await seedTrigger(api, api.projectId, { generatorId: gen, tags: [tag], status: "queued", createdAt: new Date(t0 + 3) });
    const untaggedInstance = await seedTrigger(api, api.projectId, { generatorId: gen, tags: [], status: "queued", createdAt: new Date(t0 + 4) });
    const running = await seedTrigger(api, api.projectId, { tags: [tag], status: "running" });
    const completed = await seedTrigger(api, api.projectId, { tags: [tag], status: "completed" });
    const untagged = await seedTrigger(api, api.projectId, {});
    const out = await bulk({ cancels: [{ tag }, { id: registered }] });
    expect(out.cancelled).toEqual([
      { id: registered, kind: "job", customKey: null },
      { id: queued, kind: "job", customKey: null },
      { id: retrying, kind: "job", customKey: null },
      { id: queuedInstance, kind: "job", customKey: null },
      { id: gen, kind: "generator", customKey: "tagged-gen" },
    ]);
    expect((await executionsOf(api.db, queued)).map((e) => [e.id, e.status])).toEqual([[attempt, "cancelled"]]);
    const statuses = await Promise.all([untaggedInstance, running, completed, untagged].map((id) => statusOf(api, id)));
    expect(statuses).toEqual(["queued", "running", "completed", "registered"]);
  });

  it("run before the upserts: an upsert is never cancelled by its own call", async () => {
    const k = key();
    const old = await bulk({ upserts: [{ customKey: k, url: "http://old/", tags: ["wipe"], scheduledAt: T1 }] });
    const out = await bulk({ cancels: [{ tag: "wipe" }, k], upserts: [{ customKey: k, url: "http://old/", tags: ["wipe"], scheduledAt: T1 }] });
    expect(out.cancelled.map((c: any) => c.id)).toContain(old.upserts[0].id);
    expect(out.upserts[0].operation).toBe("added");
    expect(await statusOf(api, out.upserts[0].id)).toBe("registered");
  });
});
