// A recurring trigger's next run is counted from the moment its call is
// applied, with its rows locked, not from when the request arrived. A call
// that waited for a lock (another /declare of the project, a /schedule of
// the key) across a run would otherwise plan that run again after the
// scheduler had sent it, and the target got it twice. Here the wait is
// played by a request moment three minutes old.
import { parseScheduledAt } from "@ttr/core";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { PgRunner } from "@ttr/db";
import { type LockRace, openLockRace } from "../../../test/support/lock-race.js";
import { applyBulk, applyDeclare } from "../src/declare/apply.js";
import { BULK_WORDS, checkItems, DECLARE_WORDS } from "../src/declare/items.js";
import { applySchedule } from "../src/schedule/apply.js";

let race: LockRace;
let runner: PgRunner;
let projectId: string;

beforeAll(async () => {
  race = await openLockRace("runs-from", { max: 2 });
  ({ runner, projectId } = race);
});
afterAll(() => race?.close());

/** A request that arrived three minutes ago and is applied only now. */
const arrivedLong = () => new Date(Date.now() - 180_000);

/** The registered instances of the recurring trigger `id`, by time. */
async function upcoming(id: string): Promise<Date[]> {
  const { rows } = await race.other.query<{ at: Date }>(
    "SELECT scheduled_at AS at FROM triggers WHERE generator_id = $1::uuid AND status = 'registered' ORDER BY scheduled_at",
    [id],
  );
  return rows.map((r) => r.at);
}

function expectOneAhead(instances: Date[], appliedAt: number): void {
  expect(instances).toHaveLength(1);
  expect(instances[0]!.getTime(), "the next run after the call was applied, not after it arrived").toBeGreaterThan(appliedAt);
}

it("/declare: a new recurring item, and the same declaration again, plan the run after the moment they apply", async () => {
  const item = { url: "http://127.0.0.1:9/every-minute", customKey: "every-minute", scheduledAt: "cron(* * * * *)" };
  for (const expected of ["added", "unchanged"]) {
    const now = arrivedLong();
    const items = checkItems([item], { now, tag: "ticks", words: DECLARE_WORDS });
    const appliedAt = Date.now();
    const out = await runner.$transaction((tx) => applyDeclare(tx, { projectId, tag: "ticks", items, now, runMissed: false }));
    expect(out[0]).toMatchObject({ operation: expected, kind: "generator" });
    expectOneAhead(await upcoming(out[0]!.id), appliedAt);
  }
});

it("/bulk: a new recurring upsert, and a changed one, plan the run after the moment they apply", async () => {
  for (const [path, expected] of [["/a", "added"], ["/b", "updated"]] as const) {
    const now = arrivedLong();
    const upserts = checkItems([{ url: `http://127.0.0.1:9${path}`, customKey: "bulk-minute", scheduledAt: "cron(* * * * *)" }], { now, tag: null, words: BULK_WORDS });
    const appliedAt = Date.now();
    const out = await runner.$transaction((tx) => applyBulk(tx, { projectId, upserts, cancels: [], now, runMissed: false }));
    expect(out.upserts[0]).toMatchObject({ operation: expected, kind: "generator" });
    expectOneAhead(await upcoming(out.upserts[0]!.id), appliedAt);
  }
});

it("/schedule: a recurring trigger, made and edited by its key, plans the run after the moment it applies", async () => {
  for (const url of ["http://127.0.0.1:9/s1", "http://127.0.0.1:9/s2"]) {
    const now = arrivedLong();
    const call = {
      projectId,
      now,
      when: parseScheduledAt("cron(* * * * *)", now),
      customKey: "schedule-minute",
      triggerId: null,
      runMissed: false,
      request: { title: null, url, method: "POST", headers: [], body: null, tags: [], source: "schedule" as const },
    };
    const appliedAt = Date.now();
    const out = await runner.$transaction((tx) => applySchedule(tx, call));
    expect(out.scheduledAt.getTime()).toBeGreaterThan(appliedAt);
    expectOneAhead(await upcoming(out.triggerId), appliedAt);
  }
});
