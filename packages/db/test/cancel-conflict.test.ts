// A cancel chosen as a deadlock's victim is run again, not answered 500: a
// real deadlock on a real server. Cancelling an instance by its ID locks the
// instance, then its recurring trigger (to skip its run); an edit of the
// recurring trigger locks them the other way round.
import type pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type LockRace, openLockRace } from "../../../test/support/lock-race.js";
import { cancelOne, type Db, insertGenerator, insertTrigger, type PgRunner, retryConflicts } from "@ttr/db";

let race: LockRace;
let db: Db;
let runner: PgRunner;
let other: pg.Client;
let projectId: string;

beforeAll(async () => {
  race = await openLockRace("conflicts", { max: 1, applicationName: "ttr-test-cancel-conflict" });
  ({ db, runner, other, projectId } = race);
});
afterAll(() => race?.close());

it("a cancel of an instance that deadlocks with an edit of its recurring trigger is run again and goes through", async () => {
  const request = { title: null, url: "http://example.com/a", method: "POST", headers: [], body: null, tags: [], source: "schedule" as const };
  const generatorId = await insertGenerator(db, { ...request, projectId, customKey: null, cronExpr: "0 0 1 1 *", tz: "UTC" });
  const runAt = new Date(Date.UTC(new Date().getUTCFullYear() + 1, 0, 1));
  const instanceId = await insertTrigger(db, { ...request, projectId, generatorId, customKey: null, status: "registered", scheduledAt: runAt });

  // the edit's order: the recurring trigger first ...
  await other.query("BEGIN");
  await other.query("SELECT 1 FROM generators WHERE id = $1::uuid FOR UPDATE", [generatorId]);
  const cancelled = cancelOne(runner, projectId, { triggerId: instanceId });
  // the cancel now holds the instance and waits for the recurring trigger:
  // seen from the server (asked on a connection of its own: inside a
  // transaction the activity view is a snapshot), not guessed with a sleep,
  // so that a busy machine cannot make this edit the one that waits first
  // (and the victim)
  for (let waited = 0; ; waited += 20) {
    const [waiting] = await db.$queryRawUnsafe<Array<{ n: number }>>(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'ttr-test-cancel-conflict' AND wait_event_type = 'Lock'",
    );
    if (waiting!.n > 0) break;
    if (waited > 10_000) throw new Error("the cancel never waited for the recurring trigger");
    await new Promise((r) => setTimeout(r, 20));
  }
  // ... then the instance: the cycle closes, and the cancel, waiting longest, is the victim
  await other.query("UPDATE triggers SET updated_at = clock_timestamp() WHERE id = $1::uuid", [instanceId]);
  await other.query("COMMIT");
  await cancelled;

  const [row] = (await other.query<{ status: string }>("SELECT status::text AS status FROM triggers WHERE id = $1::uuid", [instanceId])).rows;
  expect(row?.status).toBe("cancelled");
  const [g] = (await other.query<{ skip: Date | null }>("SELECT skip_through AS skip FROM generators WHERE id = $1::uuid", [generatorId])).rows;
  expect(g?.skip?.getTime()).toBe(runAt.getTime());
});

it("retryConflicts gives up after its tries, and on any other error at once", async () => {
  const deadlock = Object.assign(new Error("deadlock detected"), { code: "40P01" });
  let runs = 0;
  await expect(retryConflicts(async () => {
    runs++;
    throw deadlock;
  })).rejects.toBe(deadlock);
  expect(runs).toBe(3);
  runs = 0;
  const other = new Error("something else");
  await expect(retryConflicts(async () => {
    runs++;
    throw other;
  })).rejects.toBe(other);
  expect(runs).toBe(1);
});
