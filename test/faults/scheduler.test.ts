// Faults of the active scheduler, with a standby beside it (RELIABILITY.md):
// frozen with SIGSTOP, it is replaced within 10 s and, woken, dispatches
// nothing; killed with SIGKILL, the standby takes over at once. Triggers due
// throughout are each sent exactly once, never early.
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Service } from "../support/system.js";
import { deliveredOnce, figure, isLeader, jsonLines, metric, type Rig, secondAfter, sleep, startRig, until } from "./rig.js";

let rig: Rig;

beforeAll(async () => {
  rig = await startRig({ schedulers: 2, executors: 1 });
}, 60_000);
afterAll(async () => {
  await rig?.close();
});

async function roles(): Promise<{ active: Service; standby: Service }> {
  const schedulers = rig.of("scheduler");
  let active: Service | undefined;
  await until(async () => {
    for (const s of schedulers) if (await isLeader(s)) active = s;
    return active !== undefined;
  }, 10_000, "a scheduler is active");
  return { active: active!, standby: schedulers.find((s) => s !== active)! };
}

/** One trigger every 250 ms from `first` for `seconds`, each to a path of its own. */
async function spread(prefix: string, first: Date, seconds: number): Promise<Map<string, Date>> {
  const due = new Map<string, Date>();
  for (let i = 0; i < seconds * 4; i++) {
    const at = new Date(first.getTime() + Math.floor(i / 4) * 1000);
    due.set(`${prefix}/${i}`, at);
  }
  await Promise.all([...due].map(([p, at]) => rig.schedule(p, at)));
  return due;
}

it("a leader frozen with SIGSTOP is replaced within 10 s, and dispatches nothing once woken", async () => {
  const { active, standby } = await roles();
  // A backlog only the leader measures: triggers a paused tag holds.
  const key = { "ttr-api-key": rig.apiKey };
  expect((await rig.call("POST", "/tag-policies", { ...key, "content-type": "application/json" }, JSON.stringify({ tag: "held", throughput: { "1s": 0 } }))).status).toBe(200);
  for (let i = 0; i < 3; i++) {
    expect((await rig.call("POST", "/schedule", { ...key, "ttr-url": `${rig.target.base}/held/${i}`, "ttr-scheduled-at": "now", "ttr-tags": "held" })).status).toBe(200);
  }
  const due = await spread("frozen", secondAfter(2000), 24);
  await sleep(2500);
  // both gauges: the tick sets them one after the other
  await until(async () => (await metric(active, "ttr_attempts_held")) === 3 && (await metric(active, "ttr_attempts_held_by_tag")) === 3, 10_000, "the leader counts the held backlog");
  active.child.kill("SIGSTOP");
  const frozenAt = Date.now();
  const tookOver = await until(() => isLeader(standby), 12_000, "the standby takes over");
  const takeover = (tookOver - frozenAt) / 1000;
  expect(takeover).toBeLessThan(10);
  figure("scheduler SIGSTOP", "standby active after", takeover, "s");

  await sleep(Math.max(0, frozenAt + 15_000 - Date.now()));
  const before = { promoted: await metric(standby, "ttr_triggers_promoted_total") };
  active.child.kill("SIGCONT");
  const wokeAt = Date.now();
  // Woken, it finds its lease gone: it says so, and stops acting as leader.
  const steppedDown = await until(() => jsonLines(active).some((l) => l.message === "lost leadership"), 5000, "the woken leader logs that it lost leadership");
  figure("scheduler SIGSTOP", "woken leader stepped down after", (steppedDown - wokeAt) / 1000, "s");
  const [dispatchedAtWake, promotedAtWake] = [await metric(active, "ttr_attempts_dispatched_total"), await metric(active, "ttr_triggers_promoted_total")];
  expect(await isLeader(active)).toBe(false);

  const arrivals = await deliveredOnce(rig, due, 20_000);
  // Nothing more went out through the woken replica: its counters stand still.
  expect(await metric(active, "ttr_attempts_dispatched_total")).toBe(dispatchedAtWake);
  expect(await metric(active, "ttr_triggers_promoted_total")).toBe(promotedAtWake);
  expect((await metric(standby, "ttr_triggers_promoted_total")) ?? 0).toBeGreaterThan(before.promoted ?? 0);
  // The stepped-down replica no longer shows the backlog it measured as leader; the new leader does.
  expect(await metric(active, "ttr_attempts_held")).toBe(0);
  expect(await metric(active, "ttr_tags_full")).toBe(0);
  expect(await metric(active, "ttr_attempts_held_by_tag")).toBeNull();
  await until(async () => (await metric(standby, "ttr_attempts_held")) === 3, 10_000, "the new leader counts the held backlog");
  const lateness = arrivals.map((a, i) => a - [...due.values()][i]!.getTime());
  figure("scheduler SIGSTOP", "worst lateness while frozen", Math.max(...lateness) / 1000, "s");
  // and said nothing else alarming: no error lines, every line JSON
  expect(jsonLines(active).filter((l) => l.level === "error").map((l) => l.message)).toEqual([]);
  jsonLines(standby);
}, 90_000);

it("the active scheduler killed with SIGKILL: the standby takes over within 10 s, every trigger sent once", async () => {
  const { active, standby } = await roles();
  const due = await spread("killed", secondAfter(2000), 8);
  await sleep(3000);
  await rig.kill(active, "SIGKILL");
  const killedAt = Date.now();
  const tookOver = await until(() => isLeader(standby), 10_000, "the standby takes over");
  figure("scheduler SIGKILL", "standby active after", (tookOver - killedAt) / 1000, "s");
  await deliveredOnce(rig, due, 20_000);
}, 60_000);

it("the active scheduler stopped with SIGTERM gives its lease up: it exits 0 and the standby takes over within 2 s", async () => {
  await rig.start("scheduler");
  const { active, standby } = await roles();
  const due = await spread("stopped", secondAfter(2000), 4);
  const askedAt = Date.now();
  expect(await rig.kill(active, "SIGTERM")).toBe(0);
  const tookOver = await until(() => isLeader(standby), 3000, "the standby takes over");
  expect(tookOver - askedAt).toBeLessThan(2000);
  figure("scheduler SIGTERM", "standby active after", (tookOver - askedAt) / 1000, "s");
  await deliveredOnce(rig, due, 15_000);
}, 60_000);
