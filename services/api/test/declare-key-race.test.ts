// A custom key written by /declare or /bulk while a /schedule of the same key
// is still in its transaction (docs/concepts.md: a key belongs to at most one
// trigger at a time). The /schedule here is played by a connection that
// takes the key's lock, as /schedule does, and inserts the trigger without
// committing yet: /declare and /bulk must wait for it and then edit that
// trigger, not miss the uncommitted row and create a second one.
import type pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type PgRunner, sql } from "@ttr/db";
import { type LockRace, openLockRace } from "../../../test/support/lock-race.js";
import { applyBulk, applyDeclare } from "../src/declare/apply.js";
import { BULK_WORDS, checkItems, DECLARE_WORDS } from "../src/declare/items.js";

let race: LockRace;
let runner: PgRunner;
let other: pg.Client;
let projectId: string;

beforeAll(async () => {
  race = await openLockRace("key-race", { max: 2 });
  ({ runner, other, projectId } = race);
});
afterAll(() => race?.close());

const inAnHour = () => new Date(Date.now() + 3_600_000);

/** What /schedule does for a new key, up to its commit. */
async function scheduleUncommitted(key: string, tag: string): Promise<void> {
  await other.query("BEGIN");
  await other.query(sql("lock_custom_key"), [projectId, key]);
  await other.query(sql("insert_trigger"), [projectId, null, key, "registered", null, "http://127.0.0.1:9/schedule", "POST", "[]", null, [tag], "schedule", inAnHour()]);
}

async function stillWaiting(p: Promise<unknown>): Promise<boolean> {
  return Promise.race([p.then(() => false), new Promise<boolean>((r) => setTimeout(() => r(true), 300))]);
}

const pendingWithKey = async (key: string) =>
  (await other.query<{ n: number }>("SELECT count(*)::int AS n FROM triggers WHERE project_id = $1::uuid AND custom_key = $2 AND status = 'registered'", [projectId, key])).rows[0]!.n;

it("a /bulk upsert of a key that a /schedule is creating waits for it and edits that trigger", async () => {
  await scheduleUncommitted("bulk-key", "b");
  const now = new Date();
  const upserts = checkItems([{ url: "http://127.0.0.1:9/bulk", customKey: "bulk-key", scheduledAt: inAnHour().toISOString() }], { now, tag: null, words: BULK_WORDS });
  const bulk = runner.$transaction((tx) => applyBulk(tx, { projectId, upserts, cancels: [], now, runMissed: false }));
  expect(await stillWaiting(bulk)).toBe(true);
  await other.query("COMMIT");
  const out = await bulk;
  expect(out.upserts.map((o) => o.operation)).toEqual(["updated"]);
  expect(await pendingWithKey("bulk-key")).toBe(1);
});

it("a /declare item of a key that a /schedule is creating with the tag waits for it and edits that trigger", async () => {
  await scheduleUncommitted("declare-key", "d");
  const now = new Date();
  const items = checkItems([{ url: "http://127.0.0.1:9/declare", customKey: "declare-key", scheduledAt: inAnHour().toISOString() }], { now, tag: "d", words: DECLARE_WORDS });
  const declared = runner.$transaction((tx) => applyDeclare(tx, { projectId, tag: "d", items, now, runMissed: false }));
  expect(await stillWaiting(declared)).toBe(true);
  await other.query("COMMIT");
  const out = await declared;
  expect(out.map((o) => o.operation)).toEqual(["updated"]);
  expect(await pendingWithKey("declare-key")).toBe(1);
});
