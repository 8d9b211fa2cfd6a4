// What a retention pass keeps past the cutoff, and where it puts it: a
// trigger that stays only for an attempt still to come moves once, to today;
// a trigger past the cutoff is not sent again, and says why.
import { describe, expect, it } from "vitest";
import { clientRunner, prune, sendAgain } from "../src/index.js";
import { ago, day, retentionRows, useRetentionDatabase } from "./retention-support.js";

const fx = useRetentionDatabase("retention-stays");
const { seed } = retentionRows(() => fx);

const partDay = async (id: string) => (await fx.client.query("SELECT part_day::text AS d FROM triggers WHERE id = $1::uuid", [id])).rows[0]?.d;

describe("a pass over many old days", () => {
  it("moves a trigger that became final before the cutoff but has an attempt still to come straight to today, once", async () => {
    // ten old days, each with something to remove
    for (let d = -40; d < -30; d++) await seed(1, { partDay: day(d), status: "completed", updatedAt: ago(-d) });
    // skipped 40 days ago (moved into the past by its custom key while retrying), its retry still planned
    const [waiting] = await seed(1, { partDay: day(-40), status: "skipped", updatedAt: ago(40) }, { status: "planned", completedAt: null });
    const r = await prune(fx.tdb.url, { olderThanDays: 30 });
    expect(r).toMatchObject({ triggers: 10, moved: 1, deferred: 0 });
    expect(await partDay(waiting!)).toBe(day(0));
    const executions = await fx.client.query("SELECT status::text AS status, part_day::text AS d FROM executions WHERE trigger_id = $1::uuid", [waiting]);
    expect(executions.rows).toEqual([{ status: "planned", d: day(0) }]);
  });
});

describe("Replay now and Retry now past the cutoff", () => {
  it("answer 410 saying the trigger is older than the retention", async () => {
    const [old] = await seed(1, { partDay: day(-2), status: "completed", updatedAt: ago(31) });
    await prune(fx.tdb.url, { olderThanDays: 30 });
    const runner = clientRunner(fx.client);
    for (const [action, verb] of [
      ["replay", "replayed"],
      ["retry", "retried"],
    ] as const) {
      await expect(sendAgain(runner, fx.projectId, old!, action)).rejects.toMatchObject({
        tag: "Gone",
        message: `Trigger cannot be ${verb} (status=completed, older than the retention)`,
      });
    }
    // a younger completed trigger is still sent again
    const [young] = await seed(1, { partDay: day(-1), status: "completed", updatedAt: ago(1) });
    await expect(sendAgain(runner, fx.projectId, young!, "replay")).resolves.toMatchObject({ triggeredBy: "replay", status: "planned" });
  });
});
