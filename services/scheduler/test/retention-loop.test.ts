// The scheduler's retention loop (retention.ts) against a real PostgreSQL: a
// pass that had to leave old days for later is not a success, so
// ttr_retention_last_success_timestamp_seconds (and the alert on it) shows a
// history that stops shrinking.
import { createDb, createProject, RETENTION_LOCK_KEY } from "@ttr/db";
import { type Logger, prom } from "@ttr/platform";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ago, day, retentionRows } from "../../../packages/db/test/retention-support.js";
import { freshDatabase, type TestDatabase } from "../../../test/support/db.js";
import { createMetrics } from "../src/metrics.js";
import { RetentionLoop } from "../src/retention.js";

let tdb: TestDatabase;
let client: pg.Client;

beforeAll(async () => {
  tdb = await freshDatabase();
  const db = createDb(tdb.url, { max: 1 });
  const { projectId } = await createProject(db, "retention-loop", 1000);
  await db.$disconnect();
  client = new pg.Client({ connectionString: tdb.url });
  await client.connect();
  await retentionRows(() => ({ client, projectId })).seed(5, { partDay: day(-40), status: "completed", updatedAt: ago(40) });
});

afterAll(async () => {
  await client?.end();
  await tdb?.drop();
});

it("a pass that left old days for later is no success and says so at warn, each one in a row tried again later; the next one that removes them is", async () => {
  const registry = new prom.Registry();
  const metrics = createMetrics(registry, async () => 0, () => 0);
  const said: Array<[string, string, Record<string, unknown> | undefined]> = [];
  const at = (level: string) => (msg: string, meta?: Record<string, unknown>) => said.push([level, msg, meta]);
  const log = { info: at("info"), warn: at("warn"), error: at("error") } as unknown as Logger;
  const loop = new RetentionLoop(tdb.url, 30, metrics, log, 300);
  const lastSuccess = async () => (await metrics.retentionLastSuccess.get()).values[0]?.value ?? 0;

  // a transaction that began before the pass and stays open: it could still write to the old day
  const other = new pg.Client({ connectionString: tdb.url });
  await other.connect();
  try {
    await other.query("BEGIN");
    await other.query("SELECT 1 FROM triggers LIMIT 1");
    expect(await loop.pass()).toBe(false);
    // the next one in a row that has to wait is tried again later, and so on up to the hour
    expect(await loop.pass()).toBe(false);
  } finally {
    await other.end();
  }
  expect(await lastSuccess()).toBe(0);
  expect((await metrics.retentionDeferred.get()).values[0]?.value).toBeGreaterThan(0);
  const warned = said.filter(([level]) => level === "warn");
  expect(warned.map(([, msg]) => msg)).toEqual(["retention pass left days past the cutoff for later", "retention pass left days past the cutoff for later"]);
  expect(warned.map(([, , meta]) => meta?.retryMinutes)).toEqual([1, 2]);
  expect(warned[0]?.[2]).toMatchObject({ retentionDays: 30, triggers: 0 });
  expect(loop.retryAfterMs()).toBe(120_000);

  // a pass that finds the lock held (a ttr prune) is tried again in a minute, whatever came before it
  const holder = new pg.Client({ connectionString: tdb.url });
  await holder.connect();
  try {
    await holder.query("SELECT pg_advisory_lock($1)", [RETENTION_LOCK_KEY]);
    expect(await loop.pass()).toBe(false);
    expect(loop.retryAfterMs()).toBe(60_000);
  } finally {
    await holder.end();
  }

  const before = Date.now() / 1000;
  expect(await loop.pass()).toBe(true);
  expect(loop.retryAfterMs()).toBe(60_000);
  expect(await lastSuccess()).toBeGreaterThanOrEqual(Math.floor(before));
  expect((await metrics.retentionDeferred.get()).values[0]?.value).toBe(0);
  expect((await metrics.retentionRemoved.get()).values.find((v) => v.labels.table === "triggers")?.value).toBe(5);
});
