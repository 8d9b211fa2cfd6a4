// Starting and finishing attempts in batches (start_attempts.sql,
// finish_attempts.sql) against a real PostgreSQL: each attempt in a batch
// gets exactly what the single-attempt rules of docs/concepts.md give it.
import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, type TestDatabase } from "../../../test/support/db.js";
import { createDb, createPgRunner, createProject, type Db, finishAttempts, type PgRunner, promoteDue, startAttempts } from "../src/index.js";

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
});
