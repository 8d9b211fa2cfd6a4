// @ttr/client's methods against a live api: what each one sends is what the
// api stores, and what it resolves with is the api's answer.
import { randomBytes } from "node:crypto";
import { createClient, type TtrClient } from "@ttr/client";
import { createUser } from "@ttr/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type TestApi } from "../../../test/support/api.js";
import { triggerById } from "../../../test/support/rows.js";
import { seedExecution, seedTrigger } from "../../../test/support/session.js";

let api: TestApi;
let ttr: TtrClient;
beforeAll(async () => {
  api = await startApi();
  ttr = createClient({ baseUrl: api.base, apiKey: api.apiKey });
});
afterAll(() => api?.close());

const target = "http://127.0.0.1:9/hook";

describe("schedule: the options become the trigger", () => {
  it("method, url, time, key, tags, title, headers and body are stored as given", async () => {
    const at = new Date(Date.now() + 3_600_000);
    const result = await ttr.schedule({
      url: target,
      method: "put",
      scheduledAt: at,
      customKey: `invoice-${randomBytes(3).toString("hex")}`,
      tags: ["billing", "eu"],
      title: "Invoice reminder",
      headers: { "X-Request": "42" },
      json: { remind: true },
    });
    expect(result).toMatchObject({ operation: "schedule", kind: "job", scheduledAt: new Date(Math.floor(at.getTime() / 1000) * 1000).toISOString() });
    const { trigger, executions } = await ttr.getTrigger(result.triggerId);
    expect(executions).toEqual([]);
    expect(trigger).toMatchObject({
      id: result.triggerId,
      kind: "job",
      status: "registered",
      url: target,
      method: "PUT",
      tags: ["billing", "eu"],
      title: "Invoice reminder",
      body: '{"remind":true}',
    });
    expect(trigger.headers).toMatchObject({ "x-request": "42", "content-type": "application/json", "accept-encoding": "identity" });
    expect(Object.keys(trigger.headers).some((h) => h.startsWith("ttr-"))).toBe(false);
  });

  it("the same custom key reschedules; ttr-trigger-id edits by ID", async () => {
    const customKey = `k-${randomBytes(3).toString("hex")}`;
    const first = await ttr.schedule({ url: target, scheduledAt: "now | add 1h", customKey });
    const again = await ttr.schedule({ url: `${target}/2`, scheduledAt: "now | add 2h", customKey });
    expect(again).toMatchObject({ triggerId: first.triggerId, operation: "reschedule" });
    const byId = await ttr.schedule({ url: `${target}/3`, scheduledAt: "2099-01-01", triggerId: first.triggerId });
    expect(byId).toMatchObject({ triggerId: first.triggerId, operation: "reschedule", scheduledAt: "2099-01-01T00:00:00.000Z" });
    expect((await triggerById(api.db, first.triggerId))?.url).toBe(`${target}/3`);
  });

  it("a raw body, a past date stored as skipped, and runMissed", async () => {
    const raw = await ttr.schedule({ url: target, scheduledAt: "2000-01-01", body: new Uint8Array([104, 105]), headers: { "content-type": "text/plain" } });
    const skipped = await ttr.getTrigger(raw.triggerId);
    expect([skipped.trigger.status, skipped.trigger.body]).toEqual(["skipped", "hi"]);
    const run = await ttr.schedule({ url: target, scheduledAt: "2000-01-01", runMissed: true });
    expect((await ttr.getTrigger(run.triggerId)).trigger.status).not.toBe("skipped");
  });

  it("{cron, tz} schedules a recurring trigger", async () => {
    const result = await ttr.schedule({ url: target, method: "GET", scheduledAt: { cron: "0 9 * * *", tz: "Europe/Berlin" } });
    expect(result.kind).toBe("generator");
    const { triggers } = await ttr.listTriggers({ kind: "generator" });
    expect(triggers.find((t) => t.id === result.triggerId)).toMatchObject({ cronExpr: "0 9 * * *", tz: "Europe/Berlin", status: "active" });
  });

  it("HEAD: the trigger is stored and the call resolves with null", async () => {
    const customKey = `head-${randomBytes(3).toString("hex")}`;
    await expect(ttr.schedule({ url: target, method: "HEAD", scheduledAt: "now | add 1h", customKey })).resolves.toBeNull();
    const { triggers } = await ttr.listTriggers({ customKey });
    expect(triggers.map((t) => t.method)).toEqual(["HEAD"]);
  });

  it("refuses before sending: a ttr- header, a body with GET, body and json together, a connection-level header", async () => {
    const usedBefore = (await ttr.getProject()).project.usedThisMonth;
    await expect(ttr.schedule({ url: target, scheduledAt: "now", headers: { "TTR-Tags": "x" } })).rejects.toThrow(TypeError);
    await expect(ttr.schedule({ url: target, scheduledAt: "now", method: "GET", body: "x" })).rejects.toThrow(/GET request has no body/);
    await expect(ttr.schedule({ url: target, scheduledAt: "now", body: "x", json: {} })).rejects.toThrow(/body or json/);
    // what fetch itself cannot send: a TypeError that says so, not a Transport error
    await expect(ttr.schedule({ url: target, scheduledAt: "now", method: "TRACE" })).rejects.toThrow(/fetch cannot send a TRACE request/);
    await expect(ttr.schedule({ url: target, scheduledAt: "now", method: "GET / HTTP" })).rejects.toThrow(/is not an HTTP method/);
    await expect(ttr.schedule({ url: target, scheduledAt: "now", headers: { "bad name": "x" } })).rejects.toThrow(/is not a header name/);
    await expect(ttr.schedule({ url: target, scheduledAt: "now", headers: { "x-price": "10 €" } })).rejects.toThrow(/past U\+00FF/);
    await expect(ttr.schedule({ url: target, scheduledAt: "now", headers: { "x-split": "a\r\nInjected: yes" } })).rejects.toThrow(/line break/);
    // connection-level names, which the api would not store and fetch refuses in part
    const connectionLevel: Array<Record<string, string>> = [{ "keep-alive": "timeout=5" }, { "Transfer-Encoding": "chunked" }, { expect: "100-continue" }, { upgrade: "h2c" }, { host: "example.com" }];
    for (const headers of connectionLevel) {
      await expect(ttr.schedule({ url: target, scheduledAt: "now", headers, body: "abc" })).rejects.toThrow(new TypeError(`schedule: header ${Object.keys(headers)[0]} is connection-level: it describes this call, not the request to store, and is neither stored nor sent`));
    }
    expect((await ttr.getProject()).project.usedThisMonth).toBe(usedBefore);
  });

  it("a title and a custom key in any script arrive as written, and cancel finds the key", async () => {
    const title = "Rappel • facture n° 42 😀 请求";
    const customKey = `clé-${randomBytes(3).toString("hex")}-键`;
    const made = await ttr.schedule({ url: target, scheduledAt: "now | add 1h", title, customKey, headers: { "x-latin1": "café" } });
    const { trigger } = await ttr.getTrigger(made.triggerId);
    expect([trigger.title, trigger.customKey]).toEqual([title, customKey]);
    expect(trigger.headers["x-latin1"]).toBe("café");
    await ttr.cancel({ customKey });
    expect((await triggerById(api.db, made.triggerId))?.status).toBe("cancelled");
  });
});

describe("cancel, declare, bulk", () => {
  it("cancel by ID and by custom key", async () => {
    const a = await ttr.schedule({ url: target, scheduledAt: "now | add 1h" });
    await expect(ttr.cancel({ triggerId: a.triggerId })).resolves.toBeUndefined();
    const customKey = `c-${randomBytes(3).toString("hex")}`;
    const b = await ttr.schedule({ url: target, scheduledAt: "now | add 1h", customKey });
    await ttr.cancel({ customKey });
    expect((await triggerById(api.db, a.triggerId))?.status).toBe("cancelled");
    expect((await triggerById(api.db, b.triggerId))?.status).toBe("cancelled");
  });

  it("declare adds, then cancels what the list no longer has", async () => {
    const first = await ttr.declare({ tag: "nightly", items: [{ url: target, customKey: "a", scheduledAt: "2099-01-01" }, { url: target, customKey: "b", scheduledAt: "2099-01-01" }] });
    expect(first.summary).toEqual({ unchanged: 0, added: 2, skipped: 0, updated: 0, cancelled: 0 });
    const second = await ttr.declare({ tag: "nightly", items: [{ url: target, customKey: "a", scheduledAt: "2099-01-01" }] });
    expect(second.summary).toMatchObject({ unchanged: 1, cancelled: 1 });
    expect(second.operations.map((o) => [o.operation, o.customKey])).toEqual([
      ["unchanged", "a"],
      ["cancelled", "b"],
    ]);
  });

  it("bulk upserts and cancels in one call", async () => {
    const result = await ttr.bulk({ upserts: [{ url: target, customKey: "bulk-1", scheduledAt: "2099-01-01" }], cancels: [{ customKey: "a" }] });
    expect(result.upserts.map((o) => o.operation)).toEqual(["added"]);
    expect(result.cancelled.map((c) => c.customKey)).toEqual(["a"]);
    expect(result.summary).toMatchObject({ added: 1, cancelled: 1 });
  });
});

describe("createTrigger, editTrigger, cancelTrigger: the dashboard's fields", () => {
  it("creates from fields, edits by ID, cancels by ID; refusals are TtrErrors", async () => {
    const made = await ttr.createTrigger({ url: target, method: "post", headers: { "X-A": "1" }, body: "hi", scheduledAt: "2099-01-01", tags: ["billing"], title: "From fields" });
    expect(made).toMatchObject({ operation: "schedule", kind: "job", scheduledAt: "2099-01-01T00:00:00.000Z" });
    expect(await triggerById(api.db, made.triggerId)).toMatchObject({ method: "POST", headers: [["X-A", "1"]], tags: ["billing"], title: "From fields" });

    const edited = await ttr.editTrigger(made.triggerId, { url: `${target}/2`, scheduledAt: "2099-01-02" });
    expect(edited).toMatchObject({ triggerId: made.triggerId, operation: "reschedule" });
    expect((await triggerById(api.db, made.triggerId))?.url).toBe(`${target}/2`);
    await expect(ttr.editTrigger(made.triggerId, { url: target, scheduledAt: "cron(0 * * * *)" })).rejects.toMatchObject({
      status: 404,
      _tag: "NotFound",
      message: "Generator not found",
    });

    await expect(ttr.cancelTrigger(made.triggerId)).resolves.toBeUndefined();
    expect((await triggerById(api.db, made.triggerId))?.status).toBe("cancelled");
    await expect(ttr.cancelTrigger(made.triggerId)).rejects.toMatchObject({ status: 410, _tag: "Gone", message: "Job is no longer cancellable (status=cancelled)" });
    await expect(ttr.createTrigger({ url: "relative", scheduledAt: "now" })).rejects.toMatchObject({ status: 400, message: "Invalid URL: relative" });
  });
});

describe("tag policies", () => {
  it("create, list, change, delete", async () => {
    const { tagPolicy } = await ttr.putTagPolicy({ tag: "emails", maxConcurrent: 2, retryStrategy: "fixed", retryInitialDelaySeconds: 30 });
    expect(tagPolicy).toMatchObject({ tag: "emails", maxConcurrent: 2, retryStrategy: "fixed", retryInitialDelaySeconds: 30, retryOn: "5xx_and_network" });
    expect((await ttr.listTagPolicies()).tagPolicies.map((p) => p.id)).toContain(tagPolicy.id);
    const changed = await ttr.changeTagPolicy(tagPolicy.id, { maxConcurrent: null, throughput: { "1m": 10 } });
    expect(changed.tagPolicy).toMatchObject({ id: tagPolicy.id, maxConcurrent: null, throughput: { "1m": 10 } });
    expect(await ttr.deleteTagPolicy(tagPolicy.id)).toEqual({ ok: true });
    expect((await ttr.listTagPolicies()).tagPolicies.map((p) => p.id)).not.toContain(tagPolicy.id);
  });
});

describe("reading outcomes with the API key", () => {
  it("triggerPages walks every page of a filter once, newest first", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await ttr.schedule({ url: target, scheduledAt: "now | add 1h", tags: ["paged"] })).triggerId);
    const pages = [];
    for await (const page of ttr.triggerPages({ tag: "paged", limit: 2 })) pages.push(page);
    expect(pages.map((p) => p.triggers.length)).toEqual([2, 2, 1]);
    expect(pages.at(-1)?.nextCursor).toBeNull();
    expect(pages.flatMap((p) => p.triggers.map((t) => t.id))).toEqual([...ids].reverse());
  });

  it("listExecutions and executionPages: every attempt, or dead letters only", async () => {
    const id = await seedTrigger(api, api.projectId, { status: "completed", attempts: 2 });
    await seedExecution(api, api.projectId, id, { attemptNumber: 1, completedAt: new Date(), responseStatus: 500 });
    await seedExecution(api, api.projectId, id, { attemptNumber: 2, triggeredBy: "retry", completedAt: new Date(), responseStatus: 500, isDeadLetter: true });
    const all = await ttr.listExecutions({ triggerId: id });
    expect(all.executions.map((e) => e.attemptNumber).sort()).toEqual([1, 2]);
    const dead = await ttr.listExecutions({ triggerId: id, deadLetterOnly: true });
    expect(dead.executions.map((e) => [e.attemptNumber, e.isDeadLetter])).toEqual([[2, true]]);
    const pages = [];
    for await (const page of ttr.executionPages({ triggerId: id, limit: 1 })) pages.push(page.executions.length);
    expect(pages).toEqual([1, 1]);
    const { execution } = await ttr.retryTrigger(id);
    expect(execution).toMatchObject({ triggerId: id, attemptNumber: 3, triggeredBy: "retry", status: "planned" });
  });

  it("replayDeadLetters and discardDeadLetters: a dry run counts, then each acts on the selection", async () => {
    const at = new Date(Date.UTC(2026, 0, 5, 12));
    const dead = async () => {
      const id = await seedTrigger(api, api.projectId, { status: "completed", attempts: 1, tags: ["client-bulk"] });
      await seedExecution(api, api.projectId, id, { attemptNumber: 1, completedAt: at, responseStatus: 500, isDeadLetter: true });
      return id;
    };
    const [a, b] = [await dead(), await dead()];
    const selection = { tag: "client-bulk", from: "2026-01-05", to: "2026-01-06" };
    expect(await ttr.replayDeadLetters({ ...selection, dryRun: true })).toEqual({ count: 2, dryRun: true });
    expect(await ttr.discardDeadLetters({ tag: "client-bulk", to: "2026-01-05T12:00:00Z" })).toEqual({ count: 0, dryRun: false });
    expect(await ttr.replayDeadLetters(selection)).toEqual({ count: 2, dryRun: false });
    expect((await triggerById(api.db, a))?.status).toBe("queued");
    expect((await triggerById(api.db, b))?.status).toBe("queued");
    expect(await ttr.discardDeadLetters(selection)).toEqual({ count: 2, dryRun: false });
    expect((await ttr.listExecutions({ triggerId: a, deadLetterOnly: true })).executions).toEqual([]);
    await expect(ttr.discardDeadLetters({ from: "soon" })).rejects.toMatchObject({ status: 400, _tag: "BadRequest", message: "Invalid from: soon (an ISO 8601 date-time)" });
  });

  it("getProject counts this month's units; getStats gives one bucket per minute", async () => {
    const { project } = await ttr.getProject();
    expect(project.id).toBe(api.projectId);
    expect(project.usedThisMonth).toBeGreaterThan(0);
    const { buckets } = await ttr.getStats({ minutes: 3 });
    expect(buckets).toHaveLength(3);
  });

  it("getOverview gives lateness per minute, the queue, held backlogs and the next hour's slots", async () => {
    const overview = await ttr.getOverview({ minutes: 3 });
    expect(overview.lateness).toHaveLength(3);
    expect(overview.upcoming.slots).toHaveLength(12);
    expect(overview.queue).toEqual({ waiting: 0, oldestPlannedAt: null, running: 0 });
    await expect(ttr.getOverview({ minutes: 0 })).rejects.toMatchObject({ status: 400, _tag: "BadRequest" });
  });
});

describe("a dashboard session instead of a key", () => {
  it("login keeps the session for later calls; logout ends it", async () => {
    const email = `client-${randomBytes(3).toString("hex")}@example.com`;
    await createUser(api.db, api.projectId, email, "correct horse battery staple");
    const person = createClient({ baseUrl: api.base });
    const signedIn = await person.login({ email, password: "correct horse battery staple" });
    expect(signedIn).toMatchObject({ user: { email }, project: { id: api.projectId } });
    expect((await person.getProject()).project.id).toBe(api.projectId);
    await person.logout();
    await expect(person.getProject()).rejects.toMatchObject({ status: 401, _tag: "Unauthorized" });
  });

  it("wrong password: 401 Invalid credentials", async () => {
    await expect(createClient({ baseUrl: api.base }).login({ email: "nobody@example.com", password: "x" })).rejects.toMatchObject({
      status: 401,
      message: "Invalid credentials",
    });
  });
});

describe("the service", () => {
  it("health, readiness and metrics", async () => {
    expect(await ttr.health()).toEqual({ status: "ok" });
    expect(await ttr.readiness()).toEqual({ status: "ready" });
    expect(await ttr.metrics()).toMatch(/^# HELP /m);
  });
});
