// What a retention pass keeps past the cutoff, and where it puts it: a
// trigger that stays only for an attempt still to come moves once, to today;
// a trigger past the cutoff is not sent again, and says why.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, type TestDatabase } from "../../../test/support/db.js";
import { clientRunner, createDb, createProject, prune, sendAgain } from "../src/index.js";
import { ago, day, ensurePartitions, retentionRows } from "./retention-support.js";

let tdb: TestDatabase;
let client: pg.Client;
let projectId: string;
const { seed } = retentionRows(() => ({ client, projectId }));

beforeAll(async () => {
  tdb = await freshDatabase();
  const db = createDb(tdb.url, { max: 1 });
  projectId = (await createProject(db, "retention-stays", 1_000_000)).projectId;
  await db.$disconnect();
  client = new pg.Client({ connectionString: tdb.url });
  await client.connect();
  await ensurePartitions(client, new Date(), day(-60));
});

afterAll(async () => {
  await client?.end();
  await tdb?.drop();
});

const partDay = async (id: string) => (await client.query("SELECT part_day::text AS d FROM triggers WHERE id = $1::uuid", [id])).rows[0]?.d;

describe("a pass over many old days", () => {
  it("moves a trigger that became final before the cutoff but has an attempt still to come straight to today, once", async () => {
    // ten old days, each with something to remove
    for (let d = -40; d < -30; d++) await seed(1, { partDay: day(d), status: "completed", updatedAt: ago(-d) });
    // skipped 40 days ago (moved into the past by its custom key while retrying), its retry still planned
    const [waiting] = await seed(1, { partDay: day(-40), status: "skipped", updatedAt: ago(40) }, { status: "planned", completedAt: null });
    const r = await prune(tdb.url, { olderThanDays: 30 });
    expect(r).toMatchObject({ triggers: 10, moved: 1, deferred: 0 });
    expect(await partDay(waiting!)).toBe(day(0));
    const executions = await client.query("SELECT status::text AS status, part_day::text AS d FROM executions WHERE trigger_id = $1::uuid", [waiting]);
    expect(executions.rows).toEqual([{ status: "planned", d: day(0) }]);
  });
});

describe("Replay now and Retry now past the cutoff", () => {
  it("answer 410 saying the trigger is older than the retention", async () => {
    const [old] = await seed(1, { partDay: day(-2), status: "completed", updatedAt: ago(31) });
    await prune(tdb.url, { olderThanDays: 30 });
    const runner = clientRunner(client);
    for (const [action, verb] of [
      ["replay", "replayed"],
      ["retry", "retried"],
    ] as const) {
      await expect(sendAgain(runner, projectId, old!, action)).rejects.toMatchObject({
        tag: "Gone",
        message: `Trigger cannot be ${verb} (status=completed, older than the retention)`,
      });
    }
    // a younger completed trigger is still sent again
    const [young] = await seed(1, { partDay: day(-1), status: "completed", updatedAt: ago(1) });
    await expect(sendAgain(runner, projectId, young!, "replay")).resolves.toMatchObject({ triggeredBy: "replay", status: "planned" });
  });
});
