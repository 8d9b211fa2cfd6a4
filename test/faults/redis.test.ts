// Redis losing its data, and Redis down (RELIABILITY.md). The queue holds a
// backlog when its data goes (one executor sending one at a time to a
// target that takes 20 ms): every trigger still fires exactly once, within
// 10 s of Redis answering, oldest due first; while Redis is down every
// /readyz answers 503 within a second, naming it. Redis frozen (it takes
// commands and answers none): the scheduler's tick waiting on it logs that
// it is still running, sign-in (throttled through Redis) answers 503 in
// time, and once Redis wakes the trigger is sent once. Redis full (it
// refuses writes): the same, with one log line for the outage.
import { Redis } from "ioredis";
import { afterAll, beforeAll, expect, it } from "vitest";
import { STILL_RUNNING_MS } from "../../services/scheduler/src/loop.js";
import { executionsOf, settled } from "../support/rows.js";
import { backlog, copiesAfterOutage, deliveredOnce, figure, jsonLines, metric, oldestFirst, probe, readyzDown, type Rig, secondAfter, sentSoFar, sleep, startRig, UNAVAILABLE, until } from "./rig.js";

let rig: Rig;

beforeAll(async () => {
  rig = await startRig({ redisPersist: false, env: { EXECUTOR_CONCURRENCY: "1" } });
}, 60_000);
afterAll(async () => {
  await rig?.close();
});

async function afterLoss(fault: string, due: Map<string, Date>, answeringAt: number, lostBacklog: number): Promise<void> {
  const arrivals = await deliveredOnce(rig, due, 20_000);
  const last = Math.max(...arrivals);
  expect(last - answeringAt, "every due trigger sent within 10 s of Redis answering").toBeLessThan(10_000);
  oldestFirst(due, arrivals, copiesAfterOutage(rig, answeringAt));
  figure(fault, "jobs in the queue when its data went", lostBacklog, "jobs");
  figure(fault, "first of them sent after Redis answered", (Math.min(...arrivals.filter((a) => a >= answeringAt)) - answeringAt) / 1000, "s");
  figure(fault, "last of them sent after Redis answered", (last - answeringAt) / 1000, "s");
  for (const s of rig.services) {
    const lines = jsonLines(s).filter((l) => Date.parse(String(l.timestamp)) >= answeringAt - 5000);
    // a job the executor held when its data went may fail to complete: once, not once per job
    expect(lines.filter((l) => /Missing key|Missing lock/.test(String(l.error ?? l.message))).length, `${s.name}: repeated queue errors`).toBeLessThanOrEqual(1);
  }
}

it("FLUSHALL with a backlog in the queue: all of it sent within 10 s, oldest first, none twice, and counted as requeued", async () => {
  const due = await backlog(rig, "flush");
  await until(() => sentSoFar(rig, "flush") >= 8, 15_000, "the backlog starts draining");
  const lost = due.size - sentSoFar(rig, "flush");
  const scheduler = rig.of("scheduler")[0]!;
  const requeued = async () => (await metric(scheduler, "ttr_attempts_requeued_total")) ?? 0;
  const requeuedBefore = await requeued();
  await rig.redis.flushAll();
  await afterLoss("Redis FLUSHALL", due, Date.now(), lost);
  // the attempts the queue held when its data went are counted as enqueued again
  expect(await requeued()).toBeGreaterThan(requeuedBefore);
}, 60_000);

it("Redis restarted without persistence, backlog lost: all of it sent within 10 s of Redis answering", async () => {
  const due = await backlog(rig, "restart");
  await until(() => sentSoFar(rig, "restart") >= 8, 15_000, "the backlog starts draining");
  const lost = due.size - sentSoFar(rig, "restart");
  await rig.redis.stop();
  await sleep(2000);
  await rig.redis.start();
  await afterLoss("Redis restart, no persistence", due, Date.now(), lost);
}, 60_000);

it("Redis stopped: every /readyz answers 503 within a second naming redis; triggers stored meanwhile fire once it is back", async () => {
  await rig.redis.stop();
  const stoppedAt = Date.now();
  await readyzDown(rig, "redis", "Redis down");
  // Scheduling needs only PostgreSQL.
  const due = new Map<string, Date>();
  for (let i = 0; i < 20; i++) due.set(`during/${i}`, secondAfter(1000));
  await Promise.all([...due].map(([p, at]) => rig.schedule(p, at)));
  await sleep(Math.max(0, stoppedAt + 4000 - Date.now()));
  await rig.redis.start();
  const answeringAt = Date.now();
  const arrivals = await deliveredOnce(rig, due, 15_000);
  expect(Math.max(...arrivals) - answeringAt).toBeLessThan(10_000);
  figure("Redis down", "triggers due meanwhile sent after Redis answered", (Math.max(...arrivals) - answeringAt) / 1000, "s");
  await until(async () => (await Promise.all(rig.services.map((s) => probe(s, "/readyz")))).every((r) => r?.status === 200), 5000, "every /readyz is 200 again");
  // Each connection that logged the outage logs the recovery too (the executor's queue worker included).
  for (const s of rig.services) {
    const said = (message: string) =>
      jsonLines(s)
        .filter((l) => l.message === message && Date.parse(String(l.timestamp)) >= stoppedAt)
        .map((l) => String(l.connection))
        .sort();
    await until(() => said("redis available again").length >= said("redis unavailable").length, 5000, `${s.name} logs each recovery`);
    expect(said("redis available again"), s.name).toEqual(said("redis unavailable"));
  }
}, 60_000);

it("FLUSHALL while an executor is sending 40 attempts: each is recorded, and the vanished jobs make one log line, not one each", async () => {
  const busy = await rig.start("executor", { EXECUTOR_CONCURRENCY: "100" });
  for (const s of rig.of("executor")) if (s !== busy) await rig.kill(s, "SIGTERM");
  const at = secondAfter(2000);
  const ids: string[] = [];
  for (let i = 0; i < 40; i++) {
    rig.target.on(`/busy/${i}`, (_req, res) => setTimeout(() => res.writeHead(200).end("ok"), 2000));
    ids.push(await rig.schedule(`busy/${i}`, at));
  }
  await until(() => sentSoFar(rig, "busy") === 40, 10_000, "all 40 in flight");
  await rig.redis.flushAll();
  await until(
    async () => (await Promise.all(ids.map((id) => executionsOf(rig.db, id)))).every((ex) => ex[0]?.status === "complete" && ex[0].responseStatus === 200),
    10_000,
    "every attempt recorded",
  );
  await sleep(1000);
  expect(sentSoFar(rig, "busy")).toBe(40);
  const lines = jsonLines(busy);
  expect(lines.filter((l) => /Missing key|Missing lock/.test(String(l.error ?? ""))).map((l) => l.message)).toEqual([
    "queue jobs vanished from Redis while being sent; their outcomes are recorded all the same",
  ]);
  expect(lines.filter((l) => l.level === "error")).toEqual([]);
}, 60_000);

const signIn = () => rig.call("POST", "/auth/login", { "content-type": "application/json" }, JSON.stringify({ email: "nobody@example.com", password: "not-a-password" }));

it("Redis frozen as a trigger comes due: the tick waiting on it logs every 10 s that it is still running, naming what it finished, and shows in ttr_scheduler_tick_running_seconds; sign-in answers 503 within 5 s; woken, the trigger is sent once", async () => {
  const [scheduler] = rig.of("scheduler");
  const at = secondAfter(1500);
  const due = new Map([["frozen/0", at]]);
  await rig.schedule("frozen/0", at);
  await sleep(at.getTime() - 500 - Date.now());
  rig.redis.signal("SIGSTOP");
  const frozenAt = Date.now();
  const stillRunning = () => jsonLines(scheduler!).filter((l) => l.message === "scheduler tick still running" && Date.parse(String(l.timestamp)) >= frozenAt);
  try {
    // the first tick after the freeze waits at its first Redis command
    await until(() => stillRunning().length > 0, STILL_RUNNING_MS + 5000, "a 'scheduler tick still running' line");
    // what the TtrSchedulerTickStuck alert reads
    const running = await metric(scheduler!, "ttr_scheduler_tick_running_seconds");
    expect(running, "ttr_scheduler_tick_running_seconds of the waiting tick").toBeGreaterThanOrEqual(STILL_RUNNING_MS / 1000);
    // sign-in, throttled through Redis, refuses rather than wait on it
    const asked = Date.now();
    const refused = await signIn();
    const took = Date.now() - asked;
    expect(took, "sign-in answered within 5 s").toBeLessThan(5000);
    expect(refused.status).toBe(503);
    expect(refused.json()).toEqual(UNAVAILABLE);
    expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
    figure("Redis frozen", "sign-in answered 503 in", took / 1000, "s");
  } finally {
    rig.redis.signal("SIGCONT");
  }
  const line = stillRunning()[0]!;
  expect(line.level).toBe("warn");
  expect(Date.parse(String(line.timestamp)) - frozenAt, "logged about 10 s into the stall").toBeGreaterThanOrEqual(STILL_RUNNING_MS - 1000);
  expect(Number(line.ms)).toBeGreaterThanOrEqual(STILL_RUNNING_MS);
  expect(["firing", "sweeps"]).toContain(line.phase);
  const tickBegan = Date.parse(String(line.timestamp)) - Number(line.ms);
  if (tickBegan >= frozenAt) {
    // A tick begun after the freeze waits at its first step, the check of the
    // queue's marker in Redis: none is finished. (One begun before it, on a
    // slow machine, may wait at any later step, which its line names.)
    expect(line.phase).toBe("firing");
    expect(line.steps).toEqual({});
    expect(line.rounds).toBe(0);
  }
  const wokeAt = Date.now();
  // the throttle answers again: a wrong password is refused as such
  expect((await signIn()).status).toBe(401);
  const [arrived] = await deliveredOnce(rig, due, 10_000);
  figure("Redis frozen", "due trigger sent after Redis woke", (arrived! - wokeAt) / 1000, "s");
  expect(arrived! - wokeAt, "sent within 5 s of Redis waking").toBeLessThan(5000);
}, 60_000);

it("Redis full (maxmemory reached, noeviction): sign-in answers 503, the scheduler logs the outage once, not once per tick; with room again, the triggers due meanwhile are sent once each within 10 s", async () => {
  const admin = new Redis(rig.redis.url);
  const [scheduler] = rig.of("scheduler");
  const first = secondAfter(2000);
  const due = new Map<string, Date>();
  for (let i = 0; i < 20; i++) due.set(`full/${i}`, new Date(first.getTime() + Math.floor(i / 10) * 1000));
  await Promise.all([...due].map(([p, at]) => rig.schedule(p, at)));
  const fullAt = Date.now();
  await admin.config("SET", "maxmemory-policy", "noeviction");
  await admin.config("SET", "maxmemory", "1");
  try {
    await sleep(first.getTime() + 3000 - Date.now());
    const refused = await signIn();
    expect(refused.status).toBe(503);
    expect(refused.json()).toEqual(UNAVAILABLE);
    expect(sentSoFar(rig, "full"), "sent while Redis was full").toBe(0);
  } finally {
    await admin.config("SET", "maxmemory", "0");
  }
  const roomAt = Date.now();
  const arrivals = await deliveredOnce(rig, due, 20_000);
  const last = Math.max(...arrivals);
  expect(last - roomAt, "every due trigger sent within 10 s of Redis taking writes").toBeLessThan(10_000);
  figure("Redis full", "due triggers, the last sent after Redis had room again", (last - roomAt) / 1000, "s");
  const lines = jsonLines(scheduler!).filter((l) => Date.parse(String(l.timestamp)) >= fullAt);
  expect(lines.filter((l) => l.message === "scheduler tick failed"), "tick failures logged one by one").toEqual([]);
  expect(lines.filter((l) => l.message === "redis unavailable").length).toBe(1);
  expect(lines.filter((l) => l.message === "redis available again").length).toBe(1);
  expect((await signIn()).status).toBe(401);
  await admin.quit();
}, 60_000);

it("an attempt of a tagged trigger that ends while Redis is full is recorded and logged as usual, and the refused admission bookkeeping is one outage line", async () => {
  const admin = new Redis(rig.redis.url);
  const [executor] = rig.of("executor");
  rig.target.on("/tagged-slow", (_req, res) => setTimeout(() => res.writeHead(201).end("made"), 2500));
  const at = secondAfter(1500);
  const res = await rig.call("POST", "/schedule", { "ttr-api-key": rig.apiKey, "ttr-url": `${rig.target.base}/tagged-slow`, "ttr-scheduled-at": at.toISOString(), "ttr-tags": "slow" });
  expect(res.status).toBe(200);
  const triggerId = res.json<{ triggerId: string }>().triggerId;
  await until(() => rig.target.hits("/tagged-slow").length > 0, 10_000, "the attempt began");
  const fullAt = Date.now();
  await admin.config("SET", "maxmemory-policy", "noeviction");
  await admin.config("SET", "maxmemory", "1");
  try {
    const [execution] = await settled(rig.db, triggerId, 1, 10_000);
    expect(execution!.responseStatus).toBe(201);
    await until(() => jsonLines(executor!).some((l) => l.message === "attempt" && l.triggerId === triggerId), 5000, "the attempt's log line");
  } finally {
    await admin.config("SET", "maxmemory", "0");
    await admin.quit();
  }
  const lines = jsonLines(executor!).filter((l) => Date.parse(String(l.timestamp)) >= fullAt);
  expect(lines.filter((l) => /recording an attempt's outcome failed/.test(String(l.message))), "an attempt recorded, reported as failed to record").toEqual([]);
  expect(lines.find((l) => l.message === "attempt" && l.triggerId === triggerId)?.recorded).toBe(true);
  expect(lines.some((l) => l.message === "redis unavailable" && l.connection === "ttr-executor")).toBe(true);
}, 60_000);
