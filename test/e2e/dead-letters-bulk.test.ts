// Dead letters in bulk (docs/api/dead-letters.md), end to end through real
// HTTP: api, scheduler and executor as processes and a real target. Attempts
// fail into dead letters while the target is down; a bulk replay by tag,
// counted first, then reaches the target once per trigger, and leaves the
// other tag's dead letters alone; a bulk discard takes those off the list.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { printLogsOnFailure, startSystem, type System } from "../support/system.js";
import { startTarget, type Target } from "../support/target.js";

let sys: System;
printLogsOnFailure(() => sys);
let target: Target;

beforeAll(async () => {
  target = await startTarget();
  sys = await startSystem({ executors: 1 });
});
afterAll(async () => {
  await sys?.stop();
  await target?.close();
});

const json = () => ({ "ttr-api-key": sys.apiKey, "Content-Type": "application/json" });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function schedule(path: string, tags: string) {
  const res = await sys.call("POST", "/schedule", { "ttr-api-key": sys.apiKey, "ttr-url": `${target.base}${path}`, "ttr-scheduled-at": "now", "ttr-tags": tags });
  expect(res.status, res.text).toBe(200);
  return (res.json() as { triggerId: string }).triggerId;
}

async function deadLetters(): Promise<Array<{ triggerId: string }>> {
  const res = await sys.call("GET", "/executions?deadLetterOnly=true&limit=500", { "ttr-api-key": sys.apiKey });
  expect(res.status, res.text).toBe(200);
  return res.json().executions;
}

describe("bulk replay of dead letters by tag", () => {
  it("counts them, then reaches the target once for each, and only for that tag", async () => {
    let up = false;
    for (const path of ["/dl/0", "/dl/1", "/dl/2", "/other/0"]) {
      target.on(path, (_req, res) => res.writeHead(up ? 200 : 503).end(up ? "ok" : "down"));
    }
    const from = new Date(Date.now() - 1000).toISOString();
    const ids = [await schedule("/dl/0", "outage"), await schedule("/dl/1", "outage"), await schedule("/dl/2", "outage")];
    const other = await schedule("/other/0", "elsewhere");
    for (const path of ["/dl/0", "/dl/1", "/dl/2", "/other/0"]) await target.waitFor(path, 1, 10_000);
    // Without a retry policy each 503 is a dead letter at once.
    const deadline = Date.now() + 10_000;
    while ((await deadLetters()).length < 4 && Date.now() < deadline) await sleep(200);
    expect(new Set((await deadLetters()).map((e) => e.triggerId))).toEqual(new Set([...ids, other]));

    up = true;
    const selection = { tag: "outage", from, to: new Date(Date.now() + 60_000).toISOString() };
    const dry = await sys.call("POST", "/dead-letters/replay", json(), JSON.stringify({ ...selection, dryRun: true }));
    expect(dry.status, dry.text).toBe(200);
    expect(dry.json()).toEqual({ count: 3, dryRun: true });
    await sleep(1500);
    expect(target.hits("/dl/0")).toHaveLength(1);

    const done = await sys.call("POST", "/dead-letters/replay", { Authorization: `Bearer ${sys.apiKey}`, "Content-Type": "application/json" }, JSON.stringify(selection));
    expect(done.json()).toEqual({ count: 3, dryRun: false });
    for (const path of ["/dl/0", "/dl/1", "/dl/2"]) await target.waitFor(path, 2, 10_000);
    // Again at once: the triggers are no longer completed dead letters.
    expect((await sys.call("POST", "/dead-letters/replay", json(), JSON.stringify(selection))).json()).toEqual({ count: 0, dryRun: false });
    await sleep(2500);
    for (const path of ["/dl/0", "/dl/1", "/dl/2"]) expect(target.hits(path), path).toHaveLength(2);
    expect(target.hits("/other/0")).toHaveLength(1);
    for (const id of ids) {
      const { trigger, executions } = (await sys.call("GET", `/triggers/${id}`, { "ttr-api-key": sys.apiKey })).json();
      expect(trigger.status).toBe("completed");
      expect(executions.map((e: { triggeredBy: string; responseStatus: number; isDeadLetter: boolean }) => [e.triggeredBy, e.responseStatus, e.isDeadLetter])).toEqual([
        ["scheduler", 503, true],
        ["replay", 200, false],
      ]);
    }

    // The other tag's dead letter, discarded: off the list, not sent again.
    const discarded = await sys.call("POST", "/dead-letters/discard", json(), JSON.stringify({ tag: "elsewhere" }));
    expect(discarded.json()).toEqual({ count: 1, dryRun: false });
    expect((await deadLetters()).map((e) => e.triggerId)).not.toContain(other);
    expect((await sys.call("POST", "/dead-letters/replay", json(), JSON.stringify({ dryRun: true }))).json()).toEqual({ count: 0, dryRun: true });
    expect(target.hits("/other/0")).toHaveLength(1);
  }, 60_000);
});
