// docs/api/declare-and-bulk.md: every row of the table with its id column,
// each changedFields name, kind switches and the replacement of a retrying
// one-shot, through the api against the stored rows.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { promoteDue } from "@ttr/db";
import { startApi, type TestApi } from "../../../test/support/api.js";
import { executionsOf } from "../../../test/support/rows.js";
import { seedExecution, seedGenerator, seedTrigger } from "../../../test/support/session.js";
import { generatorRow, inHours, instances, jobRow, ok, post, statusOf } from "./declare-support.js";

let api: TestApi;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

let n = 0;
/** A tag of its own for each test, so sets do not mix. */
const freshTag = () => `table-${++n}`;
const declare = (tag: string, items: unknown[], extra: Record<string, unknown> = {}) => ok(post(api, "/declare", { tag, items, ...extra }));

const T1 = inHours(24);
const base = { customKey: "k", url: "http://127.0.0.1:9/hook", method: "POST", scheduledAt: T1, headers: { "X-A": "1" }, body: { v: 1 }, title: "Title", tags: ["x"] };
const cronItem = { ...base, scheduledAt: "cron(0 * * * *)" };

describe("no matching trigger", () => {
  it("new ids: added, and skipped for a one-shot whose time has passed", async () => {
    const tag = freshTag();
    const out = await declare(tag, [base, { ...base, customKey: "past", scheduledAt: "2020-01-01T00:00:00Z" }, { ...cronItem, customKey: "g" }]);
    expect(out.operations.map((o: any) => [o.operation, o.customKey, o.kind])).toEqual([
      ["added", "k", "job"],
      ["skipped", "past", "job"],
      ["added", "g", "generator"],
    ]);
    expect(out.summary).toEqual({ unchanged: 0, added: 2, skipped: 1, updated: 0, cancelled: 0 });
    expect((await jobRow(api, out.operations[0].id)).status).toBe("registered");
    expect((await jobRow(api, out.operations[1].id)).status).toBe("skipped");
    expect((await generatorRow(api, out.operations[2].id)).status).toBe("active");
    for (const o of out.operations) expect(o).not.toHaveProperty("changedFields");
  });
});

describe("same kind, all fields equal", () => {
  it("unchanged with the same id, one-shot and recurring, whichever endpoint created it", async () => {
    const tag = freshTag();
    const first = await declare(tag, [base, { ...cronItem, customKey: "g" }]);
    const again = await declare(tag, [base, { ...cronItem, customKey: "g" }]);
    expect(again.operations.slice(0, 2)).toEqual([
      { operation: "unchanged", customKey: "k", kind: "job", id: first.operations[0].id },
      { operation: "unchanged", customKey: "g", kind: "generator", id: first.operations[1].id },
    ]);
    // /schedule's trigger with the same request counts as equal too
    const scheduled = await api.call("POST", "/schedule", {
      "ttr-api-key": api.apiKey,
      "ttr-url": "http://127.0.0.1:9/s",
      "ttr-scheduled-at": T1,
      "ttr-custom-key": "from-schedule",
      "ttr-tags": tag,
    });
    const id = scheduled.json().triggerId;
    const out = await declare(tag, [base, { ...cronItem, customKey: "g" }, { url: "http://127.0.0.1:9/s", method: "POST", customKey: "from-schedule", scheduledAt: T1 }]);
    expect(out.operations[2]).toEqual({ operation: "unchanged", customKey: "from-schedule", kind: "job", id });
  });

  it("compares method after upper-casing, headers as an object, tags as a set", async () => {
    const tag = freshTag();
    const first = await declare(tag, [{ ...base, method: "post", headers: { A: "1", B: "2" }, tags: ["x", "y"] }]);
    const again = await declare(tag, [{ ...base, method: "POST", headers: { B: "2", A: "1" }, tags: ["y", tag, "x"] }]);
    expect(again.operations[0]).toEqual({ operation: "unchanged", customKey: "k", kind: "job", id: first.operations[0].id });
  });
});

describe("one-shot registered or skipped, different", () => {
  it("updated in place with the same id", async () => {
    const tag = freshTag();
    const first = await declare(tag, [base, { ...base, customKey: "s", scheduledAt: "2020-01-01T00:00:00Z" }]);
    const T2 = inHours(48);
    const out = await declare(tag, [{ ...base, url: "http://127.0.0.1:9/new" }, { ...base, customKey: "s", scheduledAt: T2 }]);
    expect(out.operations).toEqual([
      { operation: "updated", customKey: "k", kind: "job", id: first.operations[0].id, changedFields: ["url"] },
      { operation: "updated", customKey: "s", kind: "job", id: first.operations[1].id, changedFields: ["scheduledAt"] },
    ]);
    expect((await jobRow(api, first.operations[0].id)).url).toBe("http://127.0.0.1:9/new");
    const revived = await jobRow(api, first.operations[1].id);
    expect(revived.status).toBe("registered");
    expect(revived.scheduledAt.toISOString()).toBe(T2);
  });

  it("reports each changed field by name, in the documented order", async () => {
    const tag = freshTag();
    await declare(tag, [base]);
    const changes: Array<[Record<string, unknown>, string]> = [
      [{ scheduledAt: inHours(30) }, "scheduledAt"],
      [{ url: "http://127.0.0.1:9/other" }, "url"],
      [{ method: "PUT" }, "method"],
      [{ headers: { "X-A": "2" } }, "headers"],
      [{ body: { v: 2 } }, "body"],
      [{ title: "Other" }, "title"],
      [{ tags: ["x", "z"] }, "tags"],
    ];
    let current: Record<string, unknown> = { ...base };
    for (const [change, name] of changes) {
      current = { ...current, ...change };
      const out = await declare(tag, [current]);
      expect(out.operations[0].changedFields).toEqual([name]);
    }
    const all = await declare(tag, [{ ...base, scheduledAt: inHours(31) }]);
    expect(all.operations[0].changedFields).toEqual(["scheduledAt", "url", "method", "headers", "body", "title", "tags"]);
  });

  it("omitted fields return to defaults (item rule 3)", async () => {
    const tag = freshTag();
    const first = await declare(tag, [base]);
    const out = await declare(tag, [{ customKey: "k", url: base.url, scheduledAt: T1 }]);
    expect(out.operations[0].changedFields).toEqual(["method", "headers", "body", "title", "tags"]);
    const row = await jobRow(api, first.operations[0].id);
    expect(row).toMatchObject({ method: "GET", headers: [], body: null, title: null, tags: [tag] });
  });
});

describe("one-shot retrying, different", () => {
  it("updated with a new id: old trigger and its planned retry cancelled, the new one starts at attempt 1", async () => {
    const tag = freshTag();
    const old = await seedTrigger(api, api.projectId, { status: "retrying", customKey: "r", tags: [tag], attempts: 1, url: "http://127.0.0.1:9/old" });
    await seedExecution(api, api.projectId, old, { attemptNumber: 1, status: "complete", responseStatus: 503 });
    await seedExecution(api, api.projectId, old, { attemptNumber: 2, triggeredBy: "retry", status: "planned", plannedAt: new Date(Date.now() + 60_000) });

    // A past time with runMissed: due at once, and due before anything else in this database.
    const out = await declare(tag, [{ customKey: "r", url: "http://127.0.0.1:9/new", scheduledAt: "2001-01-01T00:00:00Z" }], { runMissed: true });
    const op = out.operations[0];
    expect(op).toMatchObject({ operation: "updated", customKey: "r", kind: "job" });
    expect(op.changedFields).toContain("url");
    expect(op.id).not.toBe(old);
    expect(out.summary).toEqual({ unchanged: 0, added: 0, skipped: 0, updated: 1, cancelled: 0 });

    expect(await statusOf(api, old)).toBe("cancelled");
    expect((await executionsOf(api.db, old)).map((e) => [e.attemptNumber, e.status])).toEqual([[1, "complete"], [2, "cancelled"]]);
    const fresh = await jobRow(api, op.id);
    expect(fresh).toMatchObject({ status: "registered", customKey: "r", attempts: 0, url: "http://127.0.0.1:9/new" });
    expect(await executionsOf(api.db, op.id)).toEqual([]);

    const promoted = await promoteDue(api.db, new Date("2001-01-01T00:00:01Z"), 10);
    expect(promoted.map((p) => p.triggerId)).toEqual([op.id]);
    expect((await executionsOf(api.db, op.id)).map((e) => [e.attemptNumber, e.triggeredBy, e.status])).toEqual([[1, "scheduler", "planned"]]);
  });

  it("unchanged when equal: the retry keeps going", async () => {
    const tag = freshTag();
    const old = await seedTrigger(api, api.projectId, { status: "retrying", customKey: "r", tags: [tag], url: "http://u/", method: "GET", scheduledAt: new Date(T1) });
    const out = await declare(tag, [{ customKey: "r", url: "http://u/", scheduledAt: T1 }]);
    expect(out.operations).toEqual([{ operation: "unchanged", customKey: "r", kind: "job", id: old }]);
    expect(await statusOf(api, old)).toBe("retrying");
  });
});

describe("recurring, different", () => {
  it("updated in place with the same id; the upcoming instance is replaced without an entry", async () => {
    const tag = freshTag();
    const first = await declare(tag, [cronItem]);
    const id = first.operations[0].id;
    const [before] = await instances(api, id);
    const out = await declare(tag, [{ ...cronItem, scheduledAt: "cron(30 * * * *, Europe/Berlin)", url: "http://127.0.0.1:9/v2" }]);
    expect(out.operations).toEqual([{ operation: "updated", customKey: "k", kind: "generator", id, changedFields: ["cronExpr", "tz", "url"] }]);
    expect(await generatorRow(api, id)).toMatchObject({ status: "active", cronExpr: "30 * * * *", tz: "Europe/Berlin", url: "http://127.0.0.1:9/v2" });
    const after = await instances(api, id);
    expect(after.map((i) => [i.id === before!.id, i.status])).toEqual([[true, "cancelled"], [false, "registered"]]);
    expect(after[1]!.url).toBe("http://127.0.0.1:9/v2");
    expect(after[1]!.scheduledAt.getUTCMinutes()).toBe(30);
  });

  it("reports each recurring field by name", async () => {
    const tag = freshTag();
    await declare(tag, [cronItem]);
    const changes: Array<[Record<string, unknown>, string]> = [
      [{ scheduledAt: "cron(5 * * * *)" }, "cronExpr"],
      [{ scheduledAt: "cron(5 * * * *, Asia/Tokyo)" }, "tz"],
      [{ url: "http://127.0.0.1:9/g2" }, "url"],
      [{ method: "DELETE" }, "method"],
      [{ headers: {} }, "headers"],
      [{ body: { _tag: "text", value: "t" } }, "body"],
      [{ title: "New" }, "title"],
      [{ tags: [] }, "tags"],
    ];
    let current: Record<string, unknown> = { ...cronItem };
    for (const [change, name] of changes) {
      current = { ...current, ...change };
      const out = await declare(tag, [current]);
      expect(out.operations[0].changedFields).toEqual([name]);
    }
  });
});

describe("other kind", () => {
  it("one-shot to recurring: updated with kind:job→generator, new id, old one cancelled", async () => {
    const tag = freshTag();
    const first = await declare(tag, [base]);
    const out = await declare(tag, [cronItem]);
    const op = out.operations[0];
    expect(op).toMatchObject({ operation: "updated", customKey: "k", kind: "generator", changedFields: ["kind:job→generator"] });
    expect(op.id).not.toBe(first.operations[0].id);
    expect(out.operations).toHaveLength(1);
    expect(await statusOf(api, first.operations[0].id)).toBe("cancelled");
    expect((await instances(api, op.id)).map((i) => i.status)).toEqual(["registered"]);
  });

  it("recurring to one-shot: updated with kind:generator→job, new id, old one and its instances cancelled", async () => {
    const tag = freshTag();
    const gen = await seedGenerator(api, api.projectId, { customKey: "k", tags: [tag] });
    const upcoming = await seedTrigger(api, api.projectId, { generatorId: gen, tags: [tag] });
    const queued = await seedTrigger(api, api.projectId, { generatorId: gen, tags: [tag], status: "queued" });
    const out = await declare(tag, [{ ...base, scheduledAt: "2020-01-01T00:00:00Z" }]);
    // The recurring trigger is replaced (no entry, rule 5); its upcoming instance is a keyless pending trigger with the tag (rule 3).
    expect(out.operations).toHaveLength(2);
    expect(out.operations[0]).toMatchObject({ operation: "updated", kind: "job", changedFields: ["kind:generator→job"] });
    expect(out.operations[1]).toEqual({ operation: "cancelled", customKey: null, kind: "job", id: upcoming });
    expect(out.summary).toEqual({ unchanged: 0, added: 0, skipped: 0, updated: 1, cancelled: 1 });
    expect((await jobRow(api, out.operations[0].id)).status).toBe("skipped");
    expect(await statusOf(api, gen)).toBe("cancelled");
    expect(await statusOf(api, upcoming)).toBe("cancelled");
    expect(await statusOf(api, queued)).toBe("cancelled");
  });

  it("a retrying one-shot switched to recurring has its planned retry cancelled", async () => {
    const tag = freshTag();
    const old = await seedTrigger(api, api.projectId, { status: "retrying", customKey: "k", tags: [tag], attempts: 1 });
    await seedExecution(api, api.projectId, old, { attemptNumber: 2, triggeredBy: "retry", status: "planned" });
    const out = await declare(tag, [cronItem]);
    expect(out.operations[0].changedFields).toEqual(["kind:job→generator"]);
    expect((await executionsOf(api.db, old)).map((e) => e.status)).toEqual(["cancelled"]);
  });
});
