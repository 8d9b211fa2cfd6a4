// GET /overview (docs/api/dashboard-api.md): lateness of first attempts per
// minute, the queue, held backlogs per tag and the triggers due in the next
// hour, computed from rows written straight to the tables, through real
// HTTP; another project's rows are never seen.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type TestApi } from "../../../test/support/api.js";
import { otherProject, seedExecution, seedTrigger, type TestSession } from "../../../test/support/session.js";

const READ_TIMEOUT_MS = 1_000;
let api: TestApi;
let mine: { projectId: string; apiKey: string; session: TestSession };
let theirs: { projectId: string; apiKey: string; session: TestSession };

beforeAll(async () => {
  api = await startApi({ readTimeoutMs: READ_TIMEOUT_MS });
  mine = await otherProject(api, "overview");
  theirs = await otherProject(api, "neighbour");
});
afterAll(() => api?.close());

const MINUTE = 60_000;
const wholeMinute = (ms: number) => Math.floor(ms / MINUTE) * MINUTE;
const iso = (ms: number) => new Date(ms).toISOString();

/** A trigger of `projectId` with its first attempt planned at `plannedAt` and started `lateMs` after it. */
async function firstAttempt(projectId: string, plannedAt: number, lateMs: number, attemptNumber = 1): Promise<void> {
  const trigger = await seedTrigger(api, projectId, { status: "completed", attempts: attemptNumber, scheduledAt: new Date(plannedAt) });
  await seedExecution(api, projectId, trigger, {
    attemptNumber,
    triggeredBy: attemptNumber === 1 ? "scheduler" : "retry",
    plannedAt: new Date(plannedAt),
    startedAt: new Date(plannedAt + lateMs),
    completedAt: new Date(plannedAt + lateMs + 20),
    responseStatus: 200,
  });
}

describe("GET /overview", () => {
  // Percentiles come from a histogram with 8 buckets per doubling: the nearest-rank value or at most 9 % above it, never below, and never above the maximum.
  const near = (exact: number) => ({ asymmetricMatch: (v: unknown) => typeof v === "number" && v >= exact && v <= exact * 2 ** (1 / 8), toString: () => `${exact} to ${exact * 2 ** (1 / 8)}` });

  it("lateness per minute: exact count and maximum, nearest-rank p50 and p99 (within 9 % above) of start minus due time, first attempts only", async () => {
    const threeAgo = wholeMinute(Date.now()) - 3 * MINUTE;
    const sevenAgo = threeAgo - 4 * MINUTE;
    for (const late of [1_500, 100, 400, 200, 300]) await firstAttempt(mine.projectId, threeAgo + 10_000, late);
    await firstAttempt(mine.projectId, sevenAgo + 30_000, 2_500);
    // Not counted: a retry started in the same minute, a first attempt not started, another project's first attempt.
    await firstAttempt(mine.projectId, threeAgo + 5_000, 40_000, 2);
    const planned = await seedTrigger(api, mine.projectId, { status: "queued", attempts: 1, scheduledAt: new Date(threeAgo) });
    await seedExecution(api, mine.projectId, planned, { attemptNumber: 1, status: "planned", plannedAt: new Date(threeAgo), dispatchedAt: null });
    await firstAttempt(theirs.projectId, threeAgo + 10_000, 9_000);

    const { lateness } = await mine.session.get("/overview");
    expect(lateness).toHaveLength(60);
    for (let i = 1; i < lateness.length; i++) expect(Date.parse(lateness[i].minute) - Date.parse(lateness[i - 1].minute)).toBe(MINUTE);
    const at = (ms: number) => lateness.find((b: any) => b.minute === iso(ms));
    expect(at(threeAgo)).toEqual({ minute: iso(threeAgo), started: 5, p50Ms: near(300), p99Ms: 1_500, maxMs: 1_500 });
    expect(at(sevenAgo)).toEqual({ minute: iso(sevenAgo), started: 1, p50Ms: 2_500, p99Ms: 2_500, maxMs: 2_500 });
    const others = lateness.filter((b: any) => b.minute !== iso(threeAgo) && b.minute !== iso(sevenAgo));
    expect(others.every((b: any) => b.started === 0 && b.p50Ms === null && b.p99Ms === null && b.maxMs === null)).toBe(true);

    // The window follows `minutes`, like GET /stats.
    const short = (await mine.session.get("/overview?minutes=5")).lateness;
    expect(short).toHaveLength(5);
    expect(short.reduce((n: number, b: any) => n + b.started, 0)).toBe(5);
    expect((await theirs.session.get("/overview")).lateness.find((b: any) => b.minute === iso(threeAgo))).toMatchObject({ started: 1, maxMs: 9_000 });
  });

  it("the queue: attempts handed to it and not started (first attempts and retries), and triggers running", async () => {
    const p = await otherProject(api, "queue");
    const now = Date.now();
    const queued = await seedTrigger(api, p.projectId, { status: "queued", attempts: 1, scheduledAt: new Date(now - 8_000) });
    await seedExecution(api, p.projectId, queued, { attemptNumber: 1, status: "planned", plannedAt: new Date(now - 8_000), dispatchedAt: new Date(now - 7_000) });
    const retrying = await seedTrigger(api, p.projectId, { status: "retrying", attempts: 2, scheduledAt: new Date(now - 60_000) });
    await seedExecution(api, p.projectId, retrying, { attemptNumber: 1, plannedAt: new Date(now - 60_000), startedAt: new Date(now - 60_000), completedAt: new Date(now - 59_000), responseStatus: 500 });
    await seedExecution(api, p.projectId, retrying, { attemptNumber: 2, triggeredBy: "retry", status: "planned", plannedAt: new Date(now - 20_000), dispatchedAt: new Date(now - 19_000) });
    for (let i = 0; i < 3; i++) {
      const running = await seedTrigger(api, p.projectId, { status: "running", attempts: 1, scheduledAt: new Date(now - 5_000) });
      await seedExecution(api, p.projectId, running, { attemptNumber: 1, status: "started", plannedAt: new Date(now - 5_000), startedAt: new Date(now - 4_000), dispatchedAt: new Date(now - 4_500) });
    }
    // Not in the queue: a held attempt, one not yet admitted, and another project's.
    const held = await seedTrigger(api, p.projectId, { status: "queued", attempts: 1, tags: ["slow"], scheduledAt: new Date(now - 90_000) });
    await seedExecution(api, p.projectId, held, { attemptNumber: 1, status: "planned", plannedAt: new Date(now - 90_000), heldBy: "slow" });
    const due = await seedTrigger(api, p.projectId, { status: "queued", attempts: 1, scheduledAt: new Date(now - 1_000) });
    await seedExecution(api, p.projectId, due, { attemptNumber: 1, status: "planned", plannedAt: new Date(now - 1_000) });
    const foreign = await seedTrigger(api, theirs.projectId, { status: "queued", attempts: 1, scheduledAt: new Date(now - 300_000) });
    await seedExecution(api, theirs.projectId, foreign, { attemptNumber: 1, status: "planned", plannedAt: new Date(now - 300_000), dispatchedAt: new Date(now - 299_000) });

    const { queue } = await p.session.get("/overview");
    expect(queue).toEqual({ waiting: 2, oldestPlannedAt: iso(now - 20_000), running: 3 });
    expect((await theirs.session.get("/overview")).queue).toEqual({ waiting: 1, oldestPlannedAt: iso(now - 300_000), running: 0 });
  });

  it("held backlog per tag, the largest first, with each tag's oldest due time; counts stop at countLimit", async () => {
    const p = await otherProject(api, "held");
    const now = Date.now();
    const hold = async (projectId: string, tag: string, agoMs: number) => {
      const t = await seedTrigger(api, projectId, { status: "queued", attempts: 1, tags: [tag], scheduledAt: new Date(now - agoMs) });
      await seedExecution(api, projectId, t, { attemptNumber: 1, status: "planned", plannedAt: new Date(now - agoMs), heldBy: tag });
    };
    for (const ago of [30_000, 90_000, 10_000]) await hold(p.projectId, "slow", ago);
    await hold(p.projectId, "batch", 5_000);
    await hold(theirs.projectId, "slow", 1_000);
    // A paused tag with a backlog past the limit, written in one statement.
    await api.db.$executeRawUnsafe(
      `WITH t AS (
         INSERT INTO triggers (project_id, status, url, method, headers, tags, scheduled_at, attempts)
         SELECT $1::uuid, 'queued', 'http://127.0.0.1:9/flood', 'POST', '[]', ARRAY['flood'], date_trunc('second', now()) - interval '1 hour', 1
         FROM generate_series(1, 10001)
         RETURNING id, part_day, project_id, scheduled_at)
       INSERT INTO executions (trigger_id, part_day, project_id, attempt_number, triggered_by, status, planned_at, held_by)
       SELECT id, part_day, project_id, 1, 'scheduler', 'planned', scheduled_at, 'flood' FROM t`,
      p.projectId,
    );

    const overview = await p.session.get("/overview");
    expect(overview.countLimit).toBe(10_000);
    expect(overview.held).toEqual([
      { tag: "flood", held: 10_000, oldestPlannedAt: expect.any(String) },
      { tag: "slow", held: 3, oldestPlannedAt: iso(now - 90_000) },
      { tag: "batch", held: 1, oldestPlannedAt: iso(now - 5_000) },
    ]);
    expect((await theirs.session.get("/overview")).held).toEqual([{ tag: "slow", held: 1, oldestPlannedAt: iso(now - 1_000) }]);
  });

  it("held backlog of more than 50 tags: the 50 largest, not the first 50 by name", async () => {
    const p = await otherProject(api, "many-held");
    // tags a00…a51 hold 1 attempt each (a00…a49 come first by name), z-big 5, z-mid 2
    await api.db.$executeRawUnsafe(
      `WITH wanted AS (
         SELECT format('a%s', lpad(n::text, 2, '0')) AS tag FROM generate_series(0, 51) n
         UNION ALL SELECT 'z-big' FROM generate_series(1, 5)
         UNION ALL SELECT 'z-mid' FROM generate_series(1, 2)),
       t AS (
         INSERT INTO triggers (project_id, status, url, method, headers, tags, scheduled_at, attempts)
         SELECT $1::uuid, 'queued', 'http://127.0.0.1:9/held', 'POST', '[]', ARRAY[tag], date_trunc('second', now()) - interval '1 minute', 1
         FROM wanted
         RETURNING id, part_day, project_id, scheduled_at, tags[1] AS tag)
       INSERT INTO executions (trigger_id, part_day, project_id, attempt_number, triggered_by, status, planned_at, held_by)
       SELECT id, part_day, project_id, 1, 'scheduler', 'planned', scheduled_at, tag FROM t`,
      p.projectId,
    );
    const held: Array<{ tag: string; held: number }> = (await p.session.get("/overview")).held;
    expect(held).toHaveLength(50);
    expect(held.slice(0, 2).map((h) => [h.tag, h.held])).toEqual([["z-big", 5], ["z-mid", 2]]);
    expect(held.slice(2).every((h) => h.held === 1)).toBe(true);
  });

  it("upcoming: registered triggers per 5-minute slot over the next hour, and the next ones due", async () => {
    const p = await otherProject(api, "upcoming");
    const thisMinute = wholeMinute(Date.now());
    const at = (minutes: number, seconds = 0) => new Date(thisMinute + minutes * MINUTE + seconds * 1000);
    const a = await seedTrigger(api, p.projectId, { scheduledAt: at(2, 10), customKey: "report-a", title: "Report A", tags: ["reports"], url: "http://127.0.0.1:9/a" });
    const b = await seedTrigger(api, p.projectId, { scheduledAt: at(2, 30), method: "GET", url: "http://127.0.0.1:9/b" });
    const c = await seedTrigger(api, p.projectId, { scheduledAt: at(7) });
    const d = await seedTrigger(api, p.projectId, { scheduledAt: at(59, 30) });
    const e = await seedTrigger(api, p.projectId, { scheduledAt: at(61) }); // past the hour: listed, not counted
    // Neither counted nor listed: overdue, cancelled, another project's.
    await seedTrigger(api, p.projectId, { scheduledAt: at(-10) });
    await seedTrigger(api, p.projectId, { scheduledAt: at(3), status: "cancelled" });
    await seedTrigger(api, theirs.projectId, { scheduledAt: at(2) });

    const { upcoming } = await p.session.get("/overview");
    expect(upcoming.slotMinutes).toBe(5);
    expect(upcoming.slots).toHaveLength(12);
    // The first slot starts with the current minute (one minute later if the clock turned meanwhile).
    const first = Date.parse(upcoming.slots[0].from);
    expect([thisMinute, thisMinute + MINUTE]).toContain(first);
    expect(upcoming.slots.map((s: any) => s.from)).toEqual(Array.from({ length: 12 }, (_, i) => iso(first + i * 5 * MINUTE)));
    expect(upcoming.slots.map((s: any) => s.due)).toEqual([2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
    expect(upcoming.next.map((t: any) => t.id)).toEqual([a, b, c, d, e]);
    expect(upcoming.next[0]).toEqual({
      id: a, customKey: "report-a", title: "Report A", url: "http://127.0.0.1:9/a", method: "POST", tags: ["reports"], scheduledAt: at(2, 10).toISOString(), generatorId: null,
    });
    expect(upcoming.next[1]).toMatchObject({ method: "GET", customKey: null, title: null, tags: [] });
  });

  it("an API key sees the same answer as a session of its project", async () => {
    const bySession = await mine.session.get("/overview?minutes=10");
    const byKey = await api.call("GET", "/overview?minutes=10", { "ttr-api-key": mine.apiKey });
    expect(byKey.status).toBe(200);
    const body = byKey.json();
    // Only the lateness window may have moved on by a minute in between.
    if (body.lateness[0].minute === bySession.lateness[0].minute) expect(body).toEqual(bySession);
    else expect(body.queue).toEqual(bySession.queue);
  });

  it("400 for a minutes value out of range, 401 without credentials", async () => {
    for (const value of ["0", "1441", "x"]) {
      const res = await mine.session.call("GET", `/overview?minutes=${value}`);
      expect(res.status, value).toBe(400);
      expect(res.json()).toEqual({ _tag: "BadRequest", message: `Invalid minutes: ${value} (an integer from 1 to 1440)` });
    }
    const res = await api.call("GET", "/overview");
    expect(res.status).toBe(401);
    expect(res.json()).toEqual({ _tag: "Unauthorized", message: "Unauthorized" });
  });

  it("503 Unavailable with Retry-After when its reads take longer than DB_READ_TIMEOUT_MS", async () => {
    const locker = new pg.Client({ connectionString: api.database.url });
    await locker.connect();
    try {
      await locker.query("BEGIN");
      await locker.query("LOCK TABLE executions IN ACCESS EXCLUSIVE MODE");
      const res = await mine.session.call("GET", "/overview");
      expect(res.status).toBe(503);
      expect(res.headers["retry-after"]).toBe("5");
      expect(res.json()).toEqual({ _tag: "Unavailable", message: "The read took too long, try again" });
    } finally {
      await locker.query("ROLLBACK");
      await locker.end();
    }
    expect((await mine.session.call("GET", "/overview")).status).toBe(200);
  });
});
