// Per-minute counts of ended attempts (attempt_minutes, docs/storage.md):
// written by the statements that end attempts (finish_attempts.sql,
// reap_lost.sql), read by GET /stats and the overview's lateness.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, type TestDatabase } from "../../../test/support/db.js";
import { createDb, createPgRunner, createProject, type Db, executionStats, finishAttempts, type PgRunner, projectOverview, promoteDue, reapLost, startAttempts } from "../src/index.js";

let tdb: TestDatabase;
let db: Db;
let pool: PgRunner;

beforeAll(async () => {
  tdb = await freshDatabase();
  db = createDb(tdb.url, { max: 4 });
  pool = createPgRunner(tdb.url, { max: 2, customPlans: true });
});

afterAll(async () => {
  await pool?.end();
  await db?.$disconnect();
  await tdb?.drop();
});

async function dueTriggers(projectId: string, n: number): Promise<void> {
  await db.$executeRawUnsafe(
    `INSERT INTO triggers (id, project_id, status, url, method, headers, tags, scheduled_at)
     SELECT gen_random_uuid(), $1::uuid, 'registered', 'http://127.0.0.1:9/x', 'GET', '[]'::jsonb, '{}', now() - interval '2 seconds'
     FROM generate_series(1, $2::int)`,
    projectId,
    n,
  );
}

const record = (completedAt: Date, responseStatus: number | null, errorMessage: string | null, isDeadLetter = false) => ({
  completedAt,
  responseStatus,
  responseHeaders: responseStatus === null ? null : {},
  responseBody: responseStatus === null ? null : "",
  responseSize: responseStatus === null ? null : 0,
  errorMessage,
  isDeadLetter,
  retryAt: null,
});

const thisMinute = (d: Date) => new Date(Math.floor(d.getTime() / 60_000) * 60_000).toISOString();

describe("attempt_minutes", () => {
  it("finish_attempts and reap_lost count each ended attempt in the minute it completed, by outcome", async () => {
    const { projectId } = await createProject(db, "counted", 1000);
    await dueTriggers(projectId, 5);
    const promoted = await promoteDue(db, new Date(), 10);
    const refs = promoted.map((p) => ({ executionId: p.executionId, partDay: p.partDay }));
    expect((await startAttempts(pool, refs, 300, 30)).every(Boolean)).toBe(true);
    const now = new Date();
    await finishAttempts(pool, [
      { ...refs[0]!, record: record(now, 200, null) },
      { ...refs[1]!, record: record(now, 503, "HTTP 503", true) },
      { ...refs[2]!, record: record(now, null, "Timeout (GET http://127.0.0.1:9/x)") },
    ]);
    // The other two are lost: past their reap time, the reaper closes them as Executor died.
    await db.$executeRawUnsafe(
      "UPDATE triggers t SET attempt_reap_after = now() - interval '1 second' FROM executions e WHERE e.id = ANY ($1::uuid[]) AND t.id = e.trigger_id",
      [refs[3]!.executionId, refs[4]!.executionId],
    );
    expect(await reapLost(db, new Date(), 10)).toHaveLength(2);

    const buckets = await executionStats(db, projectId, new Date(), 2);
    const total = (k: "success" | "httpFailure" | "networkFailure" | "deadLetters") => buckets.reduce((n, b) => n + b[k], 0);
    expect({ success: total("success"), httpFailure: total("httpFailure"), networkFailure: total("networkFailure"), deadLetters: total("deadLetters") }).toEqual({
      success: 1,
      httpFailure: 1,
      networkFailure: 3,
      deadLetters: 1,
    });
    expect(buckets.find((b) => b.success === 1)?.minute.toISOString()).toBe(thisMinute(now));
    // Every first attempt that started and ended is in the lateness of its start minute.
    const { lateness } = await projectOverview(db, projectId, new Date(), 2);
    expect(lateness.reduce((n, b) => n + b.started, 0)).toBe(5);
  });

  it("lateness percentiles from several writers' histograms: nearest rank, at most 9 % above, never below, never above the maximum", async () => {
    const { projectId } = await createProject(db, "histogram", 1000);
    const minute = Math.floor(Date.now() / 60_000) * 60_000 - 2 * 60_000;
    // 1,000 first attempts 1..1,000 ms late, counted by two connections (two shards, or one), in 10 calls
    const count = (lates: number[]) =>
      db.$queryRawUnsafe(
        `SELECT ttr_count_attempts(array_agg($1::uuid), array_agg(to_timestamp(($2::float8 + l + 20) / 1000)), array_agg(200), array_agg(false),
                                   array_agg(false), array_agg(1), array_agg(to_timestamp(($2::float8 + l) / 1000)), array_agg(to_timestamp($2::float8 / 1000)))
         FROM unnest($3::float8[]) AS l`,
        projectId,
        minute + 1_000,
        lates,
      );
    const all = Array.from({ length: 1000 }, (_, i) => i + 1);
    await Promise.all(Array.from({ length: 10 }, (_, k) => count(all.filter((v) => v % 10 === k))));
    const { lateness } = await projectOverview(db, projectId, new Date(), 5);
    const row = lateness.find((b) => new Date(b.minute).toISOString() === new Date(minute).toISOString());
    expect(row?.started).toBe(1000);
    expect(row?.maxMs).toBe(1000);
    const within = (v: number | null | undefined, exact: number) => v != null && v >= exact && v <= Math.min(exact * 2 ** (1 / 8), 1000);
    expect(within(row?.p50Ms, 500)).toBe(true);
    expect(within(row?.p99Ms, 990)).toBe(true);
    // Other minutes are empty, and another project sees none of it.
    expect(lateness.filter((b) => b !== row).every((b) => b.started === 0 && b.p50Ms === null)).toBe(true);
    const other = await projectOverview(db, (await createProject(db, "empty", 1)).projectId, new Date(), 5);
    expect(other.lateness.every((b) => b.started === 0)).toBe(true);
  });
});
