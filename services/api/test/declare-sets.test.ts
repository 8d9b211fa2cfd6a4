// docs/api/declare-and-bulk.md on the set under a tag: cancellations and
// their entries, operation order with mixed kinds, keyless items, queued
// one-shots, recurring items and their instances, past-dated items and
// runMissed, matching only among triggers carrying the tag, summary counts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nextCronTime } from "@ttr/core";
import { startApi, type TestApi } from "../../../test/support/api.js";
import { executionsOf } from "../../../test/support/rows.js";
import { seedExecution, seedGenerator, seedTrigger } from "../../../test/support/session.js";
import { inHours, instances, jobRow, ok, post, statusOf } from "./declare-support.js";

let api: TestApi;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

let n = 0;
const freshTag = () => `sets-${++n}`;
/** Waits for the next whole second, so that two quick calls share it. */
const startOfSecond = () => new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000)));
const declare = (tag: string, items: unknown[], extra: Record<string, unknown> = {}) => ok(post(api, "/declare", { tag, items, ...extra }));
const T1 = inHours(24);
const oneShot = (key: string | null, over: Record<string, unknown> = {}) => ({ ...(key === null ? {} : { customKey: key }), url: "http://127.0.0.1:9/h", scheduledAt: T1, ...over });
const recurring = (key: string, over: Record<string, unknown> = {}) => ({ customKey: key, url: "http://127.0.0.1:9/c", scheduledAt: "cron(0 * * * *)", ...over });
const seed = (tag: string, over: Parameters<typeof seedTrigger>[2] = {}) => seedTrigger(api, api.projectId, { tags: [tag], ...over });

describe("operation order and summary", () => {
  it("items in request order, then cancelled one-shots and instances, then recurring triggers", async () => {
    const tag = freshTag();
    const t0 = Date.now() - 60_000;
    const goneGen = await seedGenerator(api, api.projectId, { customKey: "gone-gen", tags: [tag], createdAt: new Date(t0) });
    const keptGen = await seedGenerator(api, api.projectId, { customKey: "kept-gen", tags: [tag], createdAt: new Date(t0 + 1000) });
    const absent = await seed(tag, { customKey: "absent", createdAt: new Date(t0 + 2000) });
    const keptUpcoming = await seed(tag, { generatorId: keptGen, createdAt: new Date(t0 + 3000) });
    const keyless = await seed(tag, { createdAt: new Date(t0 + 4000), status: "skipped" });
    const queued = await seed(tag, { customKey: "q", status: "queued", createdAt: new Date(t0 + 5000) });
    const goneUpcoming = await seed(tag, { generatorId: goneGen, createdAt: new Date(t0 + 6000) });

    const out = await declare(tag, [
      oneShot("new-job"),
      recurring("kept-gen", { url: "http://127.0.0.1:9/cron", method: "GET", title: "gen", scheduledAt: "cron(*/5 * * * *)" }),
      recurring("new-gen"),
      oneShot(null),
      oneShot("past", { scheduledAt: "2020-01-01T00:00:00Z" }),
    ]);
    expect(out.operations.map((o: any) => [o.operation, o.customKey, o.kind])).toEqual([
      ["added", "new-job", "job"],
      ["unchanged", "kept-gen", "generator"],
      ["added", "new-gen", "generator"],
      ["added", null, "job"],
      ["skipped", "past", "job"],
      ["cancelled", "absent", "job"],
      ["cancelled", null, "job"],
      ["cancelled", null, "job"],
      ["cancelled", "q", "job"],
      ["cancelled", null, "job"],
      ["cancelled", "gone-gen", "generator"],
    ]);
    expect(out.operations.slice(5).map((o: any) => o.id)).toEqual([absent, keptUpcoming, keyless, queued, goneUpcoming, goneGen]);
    expect(out.operations[1].id).toBe(keptGen);
    expect(out.summary).toEqual({ unchanged: 1, added: 3, skipped: 1, updated: 0, cancelled: 6 });
    expect(await statusOf(api, goneUpcoming)).toBe("cancelled");
  });

  it("[] cancels every cancellable trigger with the tag", async () => {
    const tag = freshTag();
    await declare(tag, [oneShot("a"), oneShot(null), recurring("g"), oneShot("s", { scheduledAt: "2020-01-01T00:00:00Z" })]);
    const out = await declare(tag, []);
    // the recurring trigger's upcoming instance is a keyless pending trigger with the tag: cancelled with an entry (rules 3, 5, 10)
    expect(out.summary).toEqual({ unchanged: 0, added: 0, skipped: 0, updated: 0, cancelled: 5 });
    // rows created by one call share a millisecond and are ordered by id: compare the one-shots as a set
    const jobs = out.operations.slice(0, 4).map((o: any) => `${o.kind}:${o.customKey}`);
    expect(jobs.sort()).toEqual(["job:a", "job:null", "job:null", "job:s"]);
    expect(out.operations[4]).toMatchObject({ kind: "generator", customKey: "g" });
    expect((await declare(tag, [])).operations).toEqual([]);
  });
});

describe("cancellation rules (rule 3)", () => {
  it("running, completed and cancelled triggers are never touched", async () => {
    const tag = freshTag();
    const running = await seed(tag, { status: "running", customKey: "a" });
    const completed = await seed(tag, { status: "completed", customKey: "b" });
    const cancelled = await seed(tag, { status: "cancelled" });
    const out = await declare(tag, []);
    expect(out.operations).toEqual([]);
    expect([await statusOf(api, running), await statusOf(api, completed), await statusOf(api, cancelled)]).toEqual(["running", "completed", "cancelled"]);
  });

  it("queued one-shots are cancelled unless their key is listed, with their planned attempt", async () => {
    const tag = freshTag();
    const keyless = await seed(tag, { status: "queued" });
    const unlisted = await seed(tag, { status: "queued", customKey: "u" });
    const listed = await seed(tag, { status: "queued", customKey: "l" });
    const attempt = await seedExecution(api, api.projectId, unlisted, { attemptNumber: 1, status: "planned" });
    const out = await declare(tag, [oneShot("l")]);
    // Rule 8: the listed key matches no pending trigger, so a new one is created and both fire.
    expect(out.operations[0]).toMatchObject({ operation: "added", customKey: "l" });
    expect(out.operations[0].id).not.toBe(listed);
    expect(out.operations.slice(1).map((o: any) => o.id)).toEqual([keyless, unlisted]);
    expect(await statusOf(api, listed)).toBe("queued");
    expect(await statusOf(api, unlisted)).toBe("cancelled");
    expect((await executionsOf(api.db, unlisted)).map((e) => [e.id, e.status])).toEqual([[attempt, "cancelled"]]);
  });

  it("a retrying trigger that is removed has its pending retry cancelled", async () => {
    const tag = freshTag();
    const retrying = await seed(tag, { status: "retrying", customKey: "r", attempts: 1 });
    await seedExecution(api, api.projectId, retrying, { attemptNumber: 2, triggeredBy: "retry", status: "planned" });
    const out = await declare(tag, []);
    expect(out.operations).toEqual([{ operation: "cancelled", customKey: "r", kind: "job", id: retrying }]);
    expect((await executionsOf(api.db, retrying))[0]!.status).toBe("cancelled");
  });

  it("rule 8: a key of a finished trigger creates a new one, past-dated without runMissed as skipped", async () => {
    const tag = freshTag();
    const done = await seed(tag, { status: "completed", customKey: "d" });
    const out = await declare(tag, [oneShot("d", { scheduledAt: "2020-01-01T00:00:00Z" })]);
    expect(out.operations[0]).toMatchObject({ operation: "skipped", customKey: "d" });
    expect(out.operations[0].id).not.toBe(done);
  });

  it("rule 9: keys match only among triggers carrying the tag", async () => {
    const tag = freshTag();
    const elsewhere = await seedTrigger(api, api.projectId, { customKey: "shared", tags: ["other-tag"] });
    const elsewhereGen = await seedGenerator(api, api.projectId, { customKey: "shared-gen", tags: [] });
    const out = await declare(tag, [oneShot("shared"), recurring("shared-gen")]);
    expect(out.operations.map((o: any) => o.operation)).toEqual(["added", "added"]);
    expect(await statusOf(api, elsewhere)).toBe("registered");
    expect(await statusOf(api, elsewhereGen)).toBe("active");
  });
});

describe("keyless items (rule 6)", () => {
  it("are re-created with new ids on every call, and may repeat", async () => {
    const tag = freshTag();
    const first = await declare(tag, [oneShot(null), oneShot(null)]);
    const ids = first.operations.map((o: any) => o.id);
    const second = await declare(tag, [oneShot(null), oneShot(null)]);
    expect(second.operations.slice(0, 2).map((o: any) => o.operation)).toEqual(["added", "added"]);
    expect(second.operations.slice(0, 2).map((o: any) => o.id).some((id: string) => ids.includes(id))).toBe(false);
    // rows created in the same millisecond are ordered by id
    const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : 1);
    expect(second.operations.slice(2)).toEqual(ids.map((id: string) => ({ operation: "cancelled", customKey: null, kind: "job", id })).sort(byId));
    expect(second.summary).toEqual({ unchanged: 0, added: 2, skipped: 0, updated: 0, cancelled: 2 });
  });
});

describe("recurring items (rules 4, 5, 10)", () => {
  it("the first instance exists when the call returns, at the next matching time", async () => {
    const tag = freshTag();
    const before = new Date();
    const out = await declare(tag, [recurring("g", { scheduledAt: "cron(*/15 * * * *, America/New_York)" })]);
    const [instance] = await instances(api, out.operations[0].id);
    expect(instance!.status).toBe("registered");
    expect(instance!.scheduledAt.getTime()).toBe(nextCronTime("*/15 * * * *", "America/New_York", before).getTime());
  });

  it("an unchanged recurring trigger gets a fresh upcoming instance on each call; the old one is reported cancelled (job, null key)", async () => {
    const tag = freshTag();
    const first = await declare(tag, [recurring("g")]);
    const gen = first.operations[0].id;
    const [upcoming] = await instances(api, gen);
    const queued = await seed(tag, { generatorId: gen, status: "queued" });
    const again = await declare(tag, [recurring("g")]);
    expect(again.operations).toEqual([
      { operation: "unchanged", customKey: "g", kind: "generator", id: gen },
      { operation: "cancelled", customKey: null, kind: "job", id: upcoming!.id },
    ]);
    const now = await instances(api, gen);
    expect(now.map((i) => [i.id, i.status])).toEqual([
      [upcoming!.id, "cancelled"],
      [queued, "queued"],
      [now[2]!.id, "registered"],
    ]);
  });

  it("a removed recurring trigger takes its upcoming and queued instances along; only the upcoming one gets an entry besides it", async () => {
    const tag = freshTag();
    const first = await declare(tag, [recurring("g")]);
    const gen = first.operations[0].id;
    const [upcoming] = (await instances(api, gen)).map((i) => i.id);
    // created one after the other (the same millisecond would leave their order to their ids)
    const queued = await seed(tag, { generatorId: gen, status: "queued", createdAt: new Date(Date.now() + 1000) });
    const running = await seed(tag, { generatorId: gen, status: "running", createdAt: new Date(Date.now() + 2000) });
    const out = await declare(tag, []);
    expect(out.operations).toEqual([
      { operation: "cancelled", customKey: null, kind: "job", id: upcoming },
      { operation: "cancelled", customKey: "g", kind: "generator", id: gen },
    ]);
    expect((await instances(api, gen)).map((i) => i.status)).toEqual(["cancelled", "cancelled", "running"]);
    expect(await statusOf(api, queued)).toBe("cancelled");
    expect(await statusOf(api, running)).toBe("running");
  });

  it("an instance is judged by its own tags: one carrying the tag whose recurring trigger was cancelled or lost the tag is cancelled, one without the tag is left", async () => {
    const tag = freshTag();
    // a recurring trigger declared under the tag, with an older instance made before it carried the tag
    const tagged = await declare(tag, [recurring("now-tagged")]);
    const taggedGen = tagged.operations[0].id;
    const t0 = Date.now() + 1000;
    const untaggedRetrying = await seedTrigger(api, api.projectId, { generatorId: taggedGen, tags: ["before"], status: "retrying", createdAt: new Date(t0) });
    // its recurring trigger cancelled (DELETE /cancel leaves waiting instances): a keyless trigger with the tag
    const cancelledGen = await seedGenerator(api, api.projectId, { status: "cancelled", tags: [tag], createdAt: new Date(t0) });
    const orphanRetrying = await seed(tag, { generatorId: cancelledGen, status: "retrying", createdAt: new Date(t0 + 1000) });
    const orphanQueued = await seed(tag, { generatorId: cancelledGen, status: "queued", createdAt: new Date(t0 + 2000) });
    // its recurring trigger no longer carries the tag
    const retagged = await seedGenerator(api, api.projectId, { tags: ["elsewhere"], createdAt: new Date(t0 + 3000) });
    const staleRetrying = await seed(tag, { generatorId: retagged, status: "retrying", createdAt: new Date(t0 + 4000) });
    const upcoming = (await instances(api, taggedGen)).find((i) => i.status === "registered")?.id;

    const out = await declare(tag, [recurring("now-tagged")]);
    expect(out.operations).toEqual([
      { operation: "unchanged", customKey: "now-tagged", kind: "generator", id: taggedGen },
      { operation: "cancelled", customKey: null, kind: "job", id: upcoming },
      { operation: "cancelled", customKey: null, kind: "job", id: orphanRetrying },
      { operation: "cancelled", customKey: null, kind: "job", id: orphanQueued },
      { operation: "cancelled", customKey: null, kind: "job", id: staleRetrying },
    ]);
    for (const id of [orphanRetrying, orphanQueued, staleRetrying]) expect(await statusOf(api, id)).toBe("cancelled");
    expect(await statusOf(api, untaggedRetrying)).toBe("retrying");
  });

  it("runMissed does not affect recurring items", async () => {
    const tag = freshTag();
    const out = await declare(tag, [recurring("g")], { runMissed: true });
    expect(out.operations[0].operation).toBe("added");
  });
});

describe("past-dated items and runMissed (rules 2, 7)", () => {
  const past = "2020-01-01T00:00:00Z";

  it("now-based and omitted times are never skipped; each call computes them anew", async () => {
    const tag = freshTag();
    const out = await declare(tag, [oneShot("a", { scheduledAt: "now | subtract 1h" }), { customKey: "b", url: "http://x" }]);
    expect(out.operations.map((o: any) => o.operation)).toEqual(["added", "added"]);
    const row = await jobRow(api, out.operations[1].id);
    expect(row.status).toBe("registered");
    expect(row.scheduledAt.getUTCMilliseconds()).toBe(0);
    expect(Math.abs(row.scheduledAt.getTime() - Date.now())).toBeLessThan(3000);
    // Again within the same second (times are whole seconds): still computed anew.
    await startOfSecond();
    const again = await declare(tag, [oneShot("a", { scheduledAt: "now | subtract 1h" }), { customKey: "b", url: "http://x" }]);
    const third = await declare(tag, [oneShot("a", { scheduledAt: "now | subtract 1h" }), { customKey: "b", url: "http://x" }]);
    for (const call of [again, third]) {
      expect(call.operations.map((o: any) => [o.operation, o.changedFields])).toEqual([["updated", ["scheduledAt"]], ["updated", ["scheduledAt"]]]);
      expect(call.operations.map((o: any) => o.id)).toEqual(out.operations.map((o: any) => o.id));
    }
  });

  it("/bulk upserts without a time are computed anew too, even within one second", async () => {
    const key = `bulk-now-${Date.now()}`;
    await startOfSecond();
    const upsert = () => ok(post(api, "/bulk", { upserts: [{ customKey: key, url: "http://x" }] }));
    const first = await upsert();
    const again = await upsert();
    expect(first.upserts[0].operation).toBe("added");
    expect(again.upserts[0]).toEqual({ operation: "updated", customKey: key, kind: "job", id: first.upserts[0].id, changedFields: ["scheduledAt"] });
  });

  it("with runMissed, past-dated items are stored pending and reported added", async () => {
    const tag = freshTag();
    const out = await declare(tag, [oneShot("a", { scheduledAt: past })], { runMissed: true });
    expect(out.operations[0].operation).toBe("added");
    expect((await jobRow(api, out.operations[0].id)).status).toBe("registered");
  });

  it("moving a trigger into the past reports updated, stores skipped, and leaves summary.skipped at 0", async () => {
    const tag = freshTag();
    const first = await declare(tag, [oneShot("a")]);
    const out = await declare(tag, [oneShot("a", { scheduledAt: past })]);
    expect(out.operations[0]).toEqual({ operation: "updated", customKey: "a", kind: "job", id: first.operations[0].id, changedFields: ["scheduledAt"] });
    expect(out.summary.skipped).toBe(0);
    expect((await jobRow(api, first.operations[0].id)).status).toBe("skipped");
  });

  it("a skipped trigger stays skipped when only runMissed is added, and is cancelled once omitted", async () => {
    const tag = freshTag();
    const first = await declare(tag, [oneShot("a", { scheduledAt: past })]);
    const id = first.operations[0].id;
    const again = await declare(tag, [oneShot("a", { scheduledAt: past })], { runMissed: true });
    expect(again.operations[0]).toEqual({ operation: "unchanged", customKey: "a", kind: "job", id });
    expect((await jobRow(api, id)).status).toBe("skipped");
    const omitted = await declare(tag, []);
    expect(omitted.operations).toEqual([{ operation: "cancelled", customKey: "a", kind: "job", id }]);
  });
});
