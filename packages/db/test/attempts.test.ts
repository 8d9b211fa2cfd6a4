// Starting and finishing attempts in batches (start_attempts.sql,
// finish_attempts.sql) against a real PostgreSQL: each attempt in a batch
// gets exactly what the single-attempt rules of docs/concepts.md give it.
import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, type TestDatabase } from "../../../test/support/db.js";
import {
  attemptTags,
  createDb,
  createPgRunner,
  createProject,
  type Db,
  finishAttempts,
  listExecutions,
  type PgRunner,
  projectOverview,
  promoteDue,
  queueDepth,
  reapLost,
  startAttempts,
  triggerExecutions,
} from "../src/index.js";

let tdb: TestDatabase;
let db: Db;
let pool: PgRunner;
let projectId: string;

beforeAll(async () => {
  tdb = await freshDatabase();
  db = createDb(tdb.url, { max: 2 });
  // as the executor runs them: prepared, planned for their values on each call
  pool = createPgRunner(tdb.url, { max: 2, customPlans: true });
  ({ projectId } = await createProject(db, "attempts", 1000));
});

afterAll(async () => {
  await pool?.end();
  await db?.$disconnect();
  await tdb?.drop();
});

/** A due trigger, stored under today or `daysAhead` days later (as retention moves old pending ones forward). */
async function dueTrigger(tags: string[] = [], daysAhead = 0): Promise<string> {
  const id = randomUUID();
  await db.$executeRawUnsafe(
    `INSERT INTO triggers (id, project_id, status, url, method, headers, body, tags, scheduled_at, part_day)
     VALUES ($1::uuid, $2::uuid, 'registered', 'http://127.0.0.1:9/x', 'POST', '[["x-a","1"]]'::jsonb, '\\x6869'::bytea, $3::text[], now() - interval '1 second',
             (now() AT TIME ZONE 'UTC')::date + $4::int)`,
    id,
    projectId,
    tags,
    daysAhead,
  );
  return id;
}

async function status(triggerId: string): Promise<{ trigger: string; executions: Array<{ status: string; attemptNumber: number; triggeredBy: string }> }> {
  const [t] = await db.$queryRawUnsafe<Array<{ status: string }>>("SELECT status::text FROM triggers WHERE id = $1::uuid", triggerId);
  const executions = await db.$queryRawUnsafe<Array<{ status: string; attemptNumber: number; triggeredBy: string }>>(
    `SELECT status::text, attempt_number AS "attemptNumber", triggered_by::text AS "triggeredBy" FROM executions WHERE trigger_id = $1::uuid ORDER BY attempt_number`,
    triggerId,
  );
  return { trigger: t?.status ?? "missing", executions };
}

const outcome = (completedAt: Date, retryAt: Date | null) => ({
  completedAt,
  responseStatus: retryAt ? 503 : 200,
  responseHeaders: { "content-type": "text/plain" },
  responseBody: "ok",
  responseSize: 2,
  errorMessage: null,
  isDeadLetter: false,
  retryAt,
});

describe("startAttempts and finishAttempts", () => {
  it("start several planned attempts at once, answering per id in order, undefined for those that may not start", async () => {
    await db.$executeRawUnsafe(
      `INSERT INTO tag_policies (id, project_id, tag, request_timeout_seconds, retry_strategy, retry_max_attempts, created_at, updated_at)
       VALUES (gen_random_uuid(), $1::uuid, 'slow', 7, 'fixed', 3, now(), now())`,
      projectId,
    );
    const plain = await dueTrigger();
    const tagged = await dueTrigger(["slow", "other"]);
    const cancelled = await dueTrigger();
    const promoted = await promoteDue(db, new Date(), 10);
    const exec = (t: string) => promoted.find((p) => p.triggerId === t)?.executionId as string;
    const today = new Date().toISOString().slice(0, 10);
    // Every attempt is named with the day it is stored under, its trigger's day.
    expect(new Set(promoted.map((p) => p.partDay))).toEqual(new Set([today]));
    const ref = (t: string) => ({ executionId: exec(t), partDay: today });
    // An untagged trigger's attempt needs no admission: promoted straight to dispatched.
    expect(Object.fromEntries(promoted.map((p) => [p.triggerId, p.dispatched]))).toEqual({ [plain]: true, [tagged]: false, [cancelled]: true });
    await db.$executeRawUnsafe("UPDATE triggers SET status = 'cancelled' WHERE id = $1::uuid", cancelled);

    const refs = [ref(tagged), { executionId: randomUUID(), partDay: today }, ref(cancelled), ref(plain)];
    const started = await startAttempts(pool, refs, 300, 30);
    expect(started.map((s) => s?.triggerId)).toEqual([tagged, undefined, undefined, plain]);
    const [t, , , p] = started;
    expect(t?.timeoutSeconds).toBe(7);
    expect(t?.policies.map((x) => x.tag)).toEqual(["slow"]);
    expect(t?.headers).toEqual([["x-a", "1"]]);
    expect(Buffer.from(t?.body ?? []).toString()).toBe("hi");
    expect(p?.timeoutSeconds).toBe(300);
    expect(p?.policies).toEqual([]);
    expect(p?.attemptNumber).toBe(1);
    expect(p?.triggeredBy).toBe("scheduler");
    expect((await status(plain)).trigger).toBe("running");

    // An attempt is started once only, even when asked again.
    expect(await startAttempts(pool, [ref(plain)], 300, 30)).toEqual([undefined]);

    const now = new Date();
    const retryAt = new Date(now.getTime() + 60_000);
    const finished = await finishAttempts(pool, [
      { ...ref(plain), record: outcome(now, null) },
      { ...ref(cancelled), record: outcome(now, null) },
      { ...ref(tagged), record: outcome(now, retryAt) },
    ]);
    expect(finished[0]).toEqual({ recorded: true, retryExecutionId: null });
    expect(finished[1]).toEqual({ recorded: false, retryExecutionId: null });
    expect(finished[2]?.recorded).toBe(true);
    expect(finished[2]?.retryExecutionId).toMatch(/^[0-9a-f-]{36}$/);

    expect(await status(plain)).toEqual({ trigger: "completed", executions: [{ status: "complete", attemptNumber: 1, triggeredBy: "scheduler" }] });
    expect(await status(tagged)).toEqual({
      trigger: "retrying",
      executions: [
        { status: "complete", attemptNumber: 1, triggeredBy: "scheduler" },
        { status: "planned", attemptNumber: 2, triggeredBy: "retry" },
      ],
    });
    const [retry] = await db.$queryRawUnsafe<Array<{ plannedAt: Date; headers: unknown }>>(
      `SELECT planned_at AS "plannedAt" FROM executions WHERE id = $1::uuid`,
      finished[2]?.retryExecutionId,
    );
    expect(retry?.plannedAt.getTime()).toBe(retryAt.getTime());
    // Finishing twice records nothing more.
    expect(await finishAttempts(pool, [{ ...ref(plain), record: outcome(now, null) }])).toEqual([{ recorded: false, retryExecutionId: null }]);
  });

  it("plans for the values of each call, as the executor does", async () => {
    expect(await pool.$queryRawUnsafe("SELECT current_setting('plan_cache_mode') AS mode")).toEqual([{ mode: "force_custom_plan" }]);
  });

  it("starts and finishes attempts of several days in one call, answering in order", async () => {
    const a = await dueTrigger([], 0);
    const b = await dueTrigger([], 2);
    const c = await dueTrigger([], 0);
    const promoted = await promoteDue(db, new Date(), 10);
    const ref = (t: string) => {
      const p = promoted.find((x) => x.triggerId === t);
      return { executionId: p?.executionId as string, partDay: p?.partDay as string };
    };
    expect(ref(b).partDay).not.toBe(ref(a).partDay);
    const started = await startAttempts(pool, [ref(b), ref(a), ref(c)], 300, 30);
    expect(started.map((s) => s?.triggerId)).toEqual([b, a, c]);
    const finished = await finishAttempts(pool, [a, b, c].map((t) => ({ ...ref(t), record: outcome(new Date(), null) })));
    expect(finished.map((f) => f.recorded)).toEqual([true, true, true]);
    for (const t of [a, b, c]) expect((await status(t)).trigger).toBe("completed");
  });

  it("does not start or finish an attempt named with a day it is not stored under", async () => {
    const trigger = await dueTrigger();
    const [p] = await promoteDue(db, new Date(), 10);
    expect(p?.triggerId).toBe(trigger);
    const wrong = { executionId: p?.executionId as string, partDay: "2000-01-01" };
    expect(await startAttempts(pool, [wrong], 300, 30)).toEqual([undefined]);
    expect((await status(trigger)).trigger).toBe("queued");
    const right = { executionId: p?.executionId as string, partDay: p?.partDay as string };
    expect((await startAttempts(pool, [right], 300, 30))[0]?.triggerId).toBe(trigger);
    expect(await finishAttempts(pool, [{ ...wrong, record: outcome(new Date(), null) }])).toEqual([{ recorded: false, retryExecutionId: null }]);
    expect(await finishAttempts(pool, [{ ...right, record: outcome(new Date(), null) }])).toEqual([{ recorded: true, retryExecutionId: null }]);
    expect((await status(trigger)).trigger).toBe("completed");
  });

  // An executor can be given the same job twice (a copy added when the
  // queue may have lost it). A start that took its snapshot while the
  // attempt was planned, then waited on another row of its batch, must not
  // set the trigger running after the attempt was sent elsewhere and the
  // next one planned: nothing would ever start or reap that trigger again.
  it("a stale start of an attempt already sent elsewhere leaves its trigger alone", async () => {
    const ids = [await dueTrigger(), await dueTrigger()].sort();
    const blocker = ids[0] as string;
    const trigger = ids[1] as string;
    const promoted = await promoteDue(db, new Date(), 10);
    const ref = (t: string) => {
      const p = promoted.find((x) => x.triggerId === t);
      return { executionId: p?.executionId as string, partDay: p?.partDay as string };
    };
    const locker = new pg.Client({ connectionString: tdb.url });
    const stale = createPgRunner(tdb.url, { max: 1, customPlans: true });
    await locker.connect();
    try {
      // The stale batch updates its triggers in id order and waits on the first.
      await locker.query("BEGIN");
      await locker.query("SELECT 1 FROM triggers WHERE id = $1::uuid FOR UPDATE", [blocker]);
      const staleStart = startAttempts(stale, [ref(blocker), ref(trigger)], 300, 30);
      const waiting = async () => (await locker.query("SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted")).rows[0].n > 0;
      for (let i = 0; i < 100 && !(await waiting()); i++) await new Promise((r) => setTimeout(r, 50));
      expect(await waiting()).toBe(true);
      // Meanwhile the attempt is started, sent and fails; its retry is planned.
      expect((await startAttempts(pool, [ref(trigger)], 300, 30))[0]?.triggerId).toBe(trigger);
      const [finished] = await finishAttempts(pool, [{ ...ref(trigger), record: outcome(new Date(), new Date(Date.now() + 60_000)) }]);
      expect(finished?.retryExecutionId).toBeTruthy();
      await locker.query("ROLLBACK");
      const started = await staleStart;
      expect(started.map((a) => a?.triggerId)).toEqual([blocker, undefined]);
    } finally {
      await locker.end();
      await stale.end();
    }
    expect(await status(trigger)).toEqual({
      trigger: "retrying",
      executions: [
        { status: "complete", attemptNumber: 1, triggeredBy: "scheduler" },
        { status: "planned", attemptNumber: 2, triggeredBy: "retry" },
      ],
    });
  });

  // The start is written to the trigger only (docs/storage.md, what a fire
  // writes): the execution stays planned and every read shows it started.
  it("a started attempt is stored on its trigger and reads as started everywhere", async () => {
    const trigger = await dueTrigger();
    const [p] = await promoteDue(db, new Date(), 10);
    expect(p?.triggerId).toBe(trigger);
    const ref = { executionId: p?.executionId as string, partDay: p?.partDay as string };
    // (earlier tests leave attempts of cancelled triggers in the queue)
    const depth = await queueDepth(db);
    const { queue } = await projectOverview(db, projectId, new Date(), 1);
    const before = Date.now();
    const [started] = await startAttempts(pool, [ref], 300, 30);
    expect(started?.timeoutSeconds).toBe(300);

    const [stored] = await db.$queryRawUnsafe<Array<{ status: string; startedAt: Date | null; timeout: number; reapAfter: Date; execution: string; executionStartedAt: Date | null }>>(
      `SELECT t.status::text, t.attempt_started_at AS "startedAt", t.attempt_timeout_seconds AS timeout, t.attempt_reap_after AS "reapAfter",
              e.status::text AS execution, e.started_at AS "executionStartedAt"
       FROM triggers t JOIN executions e ON e.trigger_id = t.id WHERE t.id = $1::uuid`,
      trigger,
    );
    expect(stored).toMatchObject({ status: "running", timeout: 300, execution: "planned", executionStartedAt: null });
    expect(stored?.startedAt?.getTime()).toBe(started?.startedAt.getTime());
    expect(stored!.startedAt!.getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(stored!.reapAfter.getTime() - stored!.startedAt!.getTime()).toBeGreaterThanOrEqual(330_000);
    expect(stored!.reapAfter.getTime() - stored!.startedAt!.getTime()).toBeLessThan(331_000);

    // Every read shows it started, with its start time; the queue no longer holds it.
    expect((await attemptTags(db, ref))?.status).toBe("started");
    const [listed] = await listExecutions(db, projectId, { triggerId: trigger, deadLetterOnly: false }, null, 10);
    expect(listed).toMatchObject({ status: "started", startedAt: started?.startedAt });
    const newest = await listExecutions(db, projectId, { triggerId: null, deadLetterOnly: false }, null, 50);
    expect(newest.find((e) => e.id === ref.executionId)).toMatchObject({ status: "started", startedAt: started?.startedAt });
    expect(await triggerExecutions(db, projectId, trigger)).toMatchObject([{ status: "started", startedAt: started?.startedAt }]);
    expect(await queueDepth(db)).toBe(depth - 1);
    expect((await projectOverview(db, projectId, new Date(), 1)).queue).toMatchObject({ waiting: queue.waiting - 1, running: queue.running + 1 });

    // Finished, the execution keeps the start and the timeout.
    expect(await finishAttempts(pool, [{ ...ref, record: outcome(new Date(), null) }])).toEqual([{ recorded: true, retryExecutionId: null }]);
    const [done] = await db.$queryRawUnsafe<Array<{ startedAt: Date; timeout: number }>>(
      `SELECT started_at AS "startedAt", timeout_seconds AS timeout FROM executions WHERE id = $1::uuid`,
      ref.executionId,
    );
    expect(done).toEqual({ startedAt: started?.startedAt, timeout: 300 });
    expect(await triggerExecutions(db, projectId, trigger)).toMatchObject([{ status: "complete", startedAt: started?.startedAt }]);
    expect((await attemptTags(db, ref))?.status).toBe("complete");
  });

  it("an attempt waiting in the queue reads as planned and counts in the queue until it starts", async () => {
    const trigger = await dueTrigger();
    const [p] = await promoteDue(db, new Date(), 10);
    const ref = { executionId: p?.executionId as string, partDay: p?.partDay as string };
    expect((await attemptTags(db, ref))?.status).toBe("planned");
    expect(await triggerExecutions(db, projectId, trigger)).toMatchObject([{ status: "planned", startedAt: null }]);
    const depth = await queueDepth(db);
    const { queue } = await projectOverview(db, projectId, new Date(), 1);
    await startAttempts(pool, [ref], 300, 30);
    expect(await queueDepth(db)).toBe(depth - 1);
    expect((await projectOverview(db, projectId, new Date(), 1)).queue).toMatchObject({ waiting: queue.waiting - 1, running: queue.running + 1 });
    await finishAttempts(pool, [{ ...ref, record: outcome(new Date(), null) }]);
    expect(await queueDepth(db)).toBe(depth - 1);
    expect((await projectOverview(db, projectId, new Date(), 1)).queue).toMatchObject({ waiting: queue.waiting - 1, running: queue.running });
  });

  it("a started attempt past its deadline is closed as Executor died", async () => {
    const trigger = await dueTrigger();
    const [p] = await promoteDue(db, new Date(), 10);
    const ref = { executionId: p?.executionId as string, partDay: p?.partDay as string };
    const [started] = await startAttempts(pool, [ref], 300, 30);
    expect(await reapLost(db, new Date(), 10)).toEqual([]);
    await db.$executeRawUnsafe("UPDATE triggers SET attempt_reap_after = now() - interval '1 second' WHERE id = $1::uuid", trigger);
    expect((await reapLost(db, new Date(), 10)).map((r) => r.executionId)).toEqual([ref.executionId]);
    expect(await triggerExecutions(db, projectId, trigger)).toMatchObject([
      { status: "complete", startedAt: started?.startedAt, errorMessage: "Executor died (status=started past reap_after)", isDeadLetter: false },
    ]);
    expect((await status(trigger)).trigger).toBe("completed");
    // its late outcome records nothing
    expect(await finishAttempts(pool, [{ ...ref, record: outcome(new Date(), null) }])).toEqual([{ recorded: false, retryExecutionId: null }]);
  });

  // Attempts started by a version that wrote the start to the execution
  // (status started) are finished and reaped as before.
  it("an execution stored as started is finished, or reaped, as before", async () => {
    const a = await dueTrigger();
    const b = await dueTrigger();
    const promoted = await promoteDue(db, new Date(), 10);
    const ref = (t: string) => {
      const p = promoted.find((x) => x.triggerId === t);
      return { executionId: p?.executionId as string, partDay: p?.partDay as string };
    };
    const startedAt = new Date(Date.now() - 5000);
    await db.$executeRawUnsafe("UPDATE triggers SET status = 'running' WHERE id = ANY ($1::uuid[])", [a, b]);
    await db.$executeRawUnsafe(
      "UPDATE executions SET status = 'started', started_at = $2, timeout_seconds = 12, reap_after = $3 WHERE id = ANY ($1::uuid[])",
      [ref(a).executionId, ref(b).executionId],
      startedAt,
      new Date(Date.now() + 60_000),
    );
    expect((await attemptTags(db, ref(a)))?.status).toBe("started");
    expect(await triggerExecutions(db, projectId, a)).toMatchObject([{ status: "started", startedAt }]);
    expect(await finishAttempts(pool, [{ ...ref(a), record: outcome(new Date(), null) }])).toEqual([{ recorded: true, retryExecutionId: null }]);
    expect(await status(a)).toEqual({ trigger: "completed", executions: [{ status: "complete", attemptNumber: 1, triggeredBy: "scheduler" }] });

    await db.$executeRawUnsafe("UPDATE executions SET reap_after = now() - interval '1 second' WHERE id = $1::uuid", ref(b).executionId);
    expect((await reapLost(db, new Date(), 10)).map((r) => r.executionId)).toEqual([ref(b).executionId]);
    expect(await triggerExecutions(db, projectId, b)).toMatchObject([{ status: "complete", startedAt, errorMessage: "Executor died (status=started past reap_after)" }]);
    expect((await status(b)).trigger).toBe("completed");
  });
});
