// POST /dead-letters/replay and /dead-letters/discard (docs/api/dead-letters.md):
// selection by tag and completion time, dry runs, what replay and discard
// change, the check order, and the project's scope.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type TestApi } from "../../../test/support/api.js";
import { otherProject, seedExecution, seedTrigger, signIn, type TestSession } from "../../../test/support/session.js";

let api: TestApi;
let s: TestSession;
beforeAll(async () => {
  api = await startApi();
  s = await signIn(api);
});
afterAll(() => api.close());

const key = () => ({ "ttr-api-key": api.apiKey, "Content-Type": "application/json" });
const bulk = (action: "replay" | "discard", body: unknown, headers: Record<string, string> = key()) =>
  api.call("POST", `/dead-letters/${action}`, headers, typeof body === "string" ? body : JSON.stringify(body));

/** A completed trigger whose only attempt, completed at `at`, is a dead letter. */
async function deadLetter(tags: string[], at: Date, projectId = api.projectId): Promise<{ triggerId: string; executionId: string }> {
  const triggerId = await seedTrigger(api, projectId, { status: "completed", tags, attempts: 1, scheduledAt: at, createdAt: at });
  const executionId = await seedExecution(api, projectId, triggerId, {
    attemptNumber: 1, plannedAt: at, startedAt: at, completedAt: at, responseStatus: 503, responseHeaders: {}, responseBody: "", responseSize: 0, isDeadLetter: true, createdAt: at,
  });
  return { triggerId, executionId };
}

async function triggerRow(id: string) {
  const rows = await api.db.$queryRawUnsafe<Array<{ status: string; attempts: number }>>("SELECT status::text, attempts FROM triggers WHERE id = $1::uuid", id);
  return rows[0]!;
}

const hour = (h: number) => new Date(Date.UTC(2026, 10, 20, h));

describe("bulk replay", () => {
  it("counts on a dry run without changing anything, then queues each selected trigger once with a replay attempt", async () => {
    const a = await deadLetter(["bulk-a"], hour(1));
    const b = await deadLetter(["bulk-a", "x"], hour(2));
    const late = await deadLetter(["bulk-a"], hour(5));
    const other = await deadLetter(["bulk-b"], hour(2));
    const sel = { tag: "bulk-a", from: "2026-11-20T00:00:00Z", to: "2026-11-20T04:00:00Z" };

    const dry = await bulk("replay", { ...sel, dryRun: true });
    expect(dry.status, dry.text).toBe(200);
    expect(dry.json()).toEqual({ count: 2, dryRun: true });
    expect(await triggerRow(a.triggerId)).toEqual({ status: "completed", attempts: 1 });

    const done = await bulk("replay", sel);
    expect(done.json()).toEqual({ count: 2, dryRun: false });
    for (const t of [a, b]) {
      expect(await triggerRow(t.triggerId)).toEqual({ status: "queued", attempts: 2 });
      const { executions } = await s.get(`/triggers/${t.triggerId}`);
      expect(executions).toHaveLength(2);
      expect(executions[0]).toMatchObject({ id: t.executionId, isDeadLetter: true });
      expect(executions[1]).toMatchObject({ attemptNumber: 2, triggeredBy: "replay", status: "planned" });
    }
    expect(await triggerRow(late.triggerId)).toEqual({ status: "completed", attempts: 1 });
    expect(await triggerRow(other.triggerId)).toEqual({ status: "completed", attempts: 1 });
    // The same call again: those triggers are no longer completed.
    expect((await bulk("replay", sel)).json()).toEqual({ count: 0, dryRun: false });
  });

  it("skips a dead letter that is no longer its trigger's latest attempt", async () => {
    const t = await deadLetter(["bulk-latest"], hour(1));
    await seedExecution(api, api.projectId, t.triggerId, {
      attemptNumber: 2, triggeredBy: "replay", plannedAt: hour(3), startedAt: hour(3), completedAt: hour(3), responseStatus: 200, responseHeaders: {}, responseBody: "", responseSize: 0,
    });
    await api.db.$executeRawUnsafe("UPDATE triggers SET attempts = 2 WHERE id = $1::uuid", t.triggerId);
    expect((await bulk("replay", { tag: "bulk-latest", dryRun: true })).json()).toEqual({ count: 0, dryRun: true });
    expect((await bulk("replay", { tag: "bulk-latest" })).json()).toEqual({ count: 0, dryRun: false });
    // but it is still on the dead-letter list, and can be discarded
    expect((await bulk("discard", { tag: "bulk-latest", dryRun: true })).json()).toEqual({ count: 1, dryRun: true });
  });
});

describe("bulk discard", () => {
  it("takes dead letters off the dead-letter list, keeps them as dead letters, and leaves their triggers alone", async () => {
    const a = await deadLetter(["disc"], hour(10));
    const b = await deadLetter(["disc"], hour(11));
    const keep = await deadLetter(["disc"], hour(12));
    const sel = { tag: "disc", from: "2026-11-20T10:00:00Z", to: "2026-11-20T12:00:00Z" };
    expect((await bulk("discard", { ...sel, dryRun: true })).json()).toEqual({ count: 2, dryRun: true });
    const done = await bulk("discard", sel, { Cookie: s.cookie, "Content-Type": "application/json" });
    expect(done.status, done.text).toBe(200);
    expect(done.json()).toEqual({ count: 2, dryRun: false });

    const { executions } = await s.get("/executions?deadLetterOnly=true&limit=500");
    const listed = new Set(executions.map((e: { id: string }) => e.id));
    expect(listed.has(a.executionId)).toBe(false);
    expect(listed.has(b.executionId)).toBe(false);
    expect(listed.has(keep.executionId)).toBe(true);
    const detail = await s.get(`/triggers/${a.triggerId}`);
    expect(detail.trigger.status).toBe("completed");
    expect(detail.executions[0]).toMatchObject({ isDeadLetter: true, discardedAt: expect.stringMatching(/Z$/) });
    expect((await s.get(`/triggers/${keep.triggerId}`)).executions[0]).not.toHaveProperty("discardedAt");

    // discarded ones are not replayed in bulk, nor discarded twice
    expect((await bulk("replay", { ...sel, dryRun: true })).json()).toEqual({ count: 0, dryRun: true });
    expect((await bulk("discard", sel)).json()).toEqual({ count: 0, dryRun: false });
  });
});

describe("checks", () => {
  it("answers 415, then a format 400 with no body, then 401, then value 400s", async () => {
    const text = await api.call("POST", "/dead-letters/replay", { "ttr-api-key": "nope", "Content-Type": "text/plain" }, "{}");
    expect(text.status).toBe(415);
    expect(text.text).toBe("Unsupported content-type: text/plain");
    for (const body of ["not json", "[]", '{"tag":5}', '{"dryRun":"yes"}', '{"from":null}', ""]) {
      const res = await bulk("discard", body, { "ttr-api-key": "nope", "Content-Type": "application/json" });
      expect(res.status, body).toBe(400);
      expect(res.text, body).toBe("");
    }
    expect((await bulk("replay", {}, { "Content-Type": "application/json" })).json()).toEqual({ _tag: "Unauthorized", message: "Unauthorized" });
    expect((await bulk("replay", {}, { "ttr-api-key": "nope", "Content-Type": "application/json" })).json()).toEqual({ _tag: "Unauthorized", message: "Invalid api key" });
    const cases: Array<[unknown, string]> = [
      [{ tag: "" }, "Invalid tag: empty (leave it out for every tag)"],
      [{ from: "yesterday" }, "Invalid from: yesterday (an ISO 8601 date-time)"],
      [{ from: "2026-11-20", to: "2026-13-01" }, "Invalid to: 2026-13-01 (an ISO 8601 date-time)"],
      [{ from: "2026-11-20T10:00:00Z", to: "2026-11-20T10:00:00Z" }, "from must be before to"],
    ];
    for (const [body, message] of cases) {
      const res = await bulk("replay", body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json()).toEqual({ _tag: "BadRequest", message });
    }
    expect((await api.call("GET", "/dead-letters/replay", key())).status).toBe(404);
  });

  it("acts only on the caller's project", async () => {
    const other = await otherProject(api, "bulk-other");
    const theirs = await deadLetter(["shared-tag"], hour(20), other.projectId);
    const mine = await deadLetter(["shared-tag"], hour(20));
    expect((await bulk("replay", { tag: "shared-tag" })).json()).toEqual({ count: 1, dryRun: false });
    expect(await triggerRow(mine.triggerId)).toMatchObject({ status: "queued" });
    expect(await triggerRow(theirs.triggerId)).toEqual({ status: "completed", attempts: 1 });
  });
});
