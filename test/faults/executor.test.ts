// Executors killed and stopped mid-attempt (RELIABILITY.md). Attempts
// timeout 4 s and reap grace 3 s here (test settings; the defaults are
// 300 s and 30 s). Killed: the requests it was sending are not sent again,
// and their attempts are closed as Executor died once timeout plus grace
// have passed; the other executor goes on with the rest. Stopped with
// SIGTERM: it finishes and records what it was sending, then exits 0. One
// that dies holding jobs it never started: they are sent all the same; so
// are those of one stopped while PostgreSQL is down, which exits at once.
import { Worker } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ATTEMPT_QUEUE, attemptsOfJob } from "@ttr/core";
import { executionsOf } from "../support/rows.js";
import { deliveredOnce, figure, jsonLines, metric, probe, type Rig, secondAfter, sleep, startRig, until } from "./rig.js";

const TIMEOUT_S = 4;
const GRACE_S = 3;
let rig: Rig;

beforeAll(async () => {
  rig = await startRig({ executors: 2, env: { TTR_DEFAULT_TIMEOUT_SECONDS: String(TIMEOUT_S), TTR_REAP_GRACE_SECONDS: String(GRACE_S) } });
}, 60_000);
afterAll(async () => {
  await rig?.close();
});

/** `n` triggers due at `at` whose target answers after `answerMs`; returns path → trigger id. */
async function slow(prefix: string, n: number, at: Date, answerMs: number): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  await Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const p = `${prefix}/${i}`;
      rig.target.on(`/${p}`, (_req, res) => setTimeout(() => res.writeHead(200).end("ok"), answerMs));
      ids.set(p, await rig.schedule(p, at));
    }),
  );
  return ids;
}

/** The executor sending the most attempts now: BullMQ may hand all of a burst to one of the two. */
async function busiestExecutor() {
  const executors = rig.of("executor");
  const inFlight = await Promise.all(executors.map(async (e) => (await metric(e, "ttr_attempts_in_flight")) ?? 0));
  return executors[inFlight.indexOf(Math.max(...inFlight))]!;
}

it("an executor killed mid-attempt: nothing is sent twice, its attempts close as Executor died after timeout plus grace", async () => {
  const at = secondAfter(2000);
  const ids = await slow("killed", 40, at, 2500);
  await until(() => rig.target.received.filter((r) => r.url.startsWith("/killed/")).length === 40, 10_000, "all 40 requests in flight");
  const victim = await busiestExecutor();
  await rig.kill(victim, "SIGKILL");
  const killedAt = Date.now();
  // more work after the kill goes to the surviving executor
  const after = new Map<string, Date>();
  for (let i = 0; i < 20; i++) after.set(`after-kill/${i}`, secondAfter(1000));
  await Promise.all([...after].map(([p, d]) => rig.schedule(p, d)));
  await deliveredOnce(rig, after, 15_000);

  const closed = await until(
    async () => {
      const all = await Promise.all([...ids.values()].map((id) => executionsOf(rig.db, id)));
      return all.every((ex) => ex.length === 1 && ex[0]!.status === "complete");
    },
    (TIMEOUT_S + GRACE_S + 10) * 1000,
    "every attempt closed",
  );
  const executions = (await Promise.all([...ids.values()].map((id) => executionsOf(rig.db, id)))).map((ex) => ex[0]!);
  const died = executions.filter((e) => e.errorMessage === "Executor died (status=started past reap_after)");
  expect(died.length, "the killed executor was sending some of them").toBeGreaterThan(0);
  for (const e of executions) {
    if (e.errorMessage === null) expect(e.responseStatus).toBe(200);
    else expect(e.errorMessage).toBe("Executor died (status=started past reap_after)");
  }
  for (const p of ids.keys()) expect(rig.target.hits(`/${p}`), `${p} sent once`).toHaveLength(1);
  figure("executor SIGKILL", "its attempts closed as Executor died after the kill", (closed - killedAt) / 1000, `s (timeout ${TIMEOUT_S} s + grace ${GRACE_S} s)`);
  figure("executor SIGKILL", "attempts it was sending", died.length, "attempts");
}, 60_000);

it("an executor stopped with SIGTERM mid-attempt finishes and records what it was sending, then exits 0", async () => {
  await rig.start("executor");
  const at = secondAfter(2000);
  const ids = await slow("stopped", 40, at, 2000);
  await until(() => rig.target.received.filter((r) => r.url.startsWith("/stopped/")).length === 40, 10_000, "all 40 requests in flight");
  const stopping = await busiestExecutor();
  const askedAt = Date.now();
  const code = await rig.kill(stopping, "SIGTERM");
  expect(code).toBe(0);
  figure("executor SIGTERM", "exited 0 after", (Date.now() - askedAt) / 1000, "s (requests in flight answered after 2 s)");
  await sleep(500);
  const executions = await until(
    async () => (await Promise.all([...ids.values()].map((id) => executionsOf(rig.db, id)))).every((ex) => ex[0]?.status === "complete"),
    10_000,
    "every attempt recorded",
  ).then(() => Promise.all([...ids.values()].map(async (id) => (await executionsOf(rig.db, id))[0]!)));
  expect(executions.map((e) => [e.responseStatus, e.errorMessage])).toEqual(executions.map(() => [200, null]));
  for (const p of ids.keys()) expect(rig.target.hits(`/${p}`), `${p} sent once`).toHaveLength(1);
}, 60_000);

it("an executor that dies holding jobs it never started: each is sent within 15 s, once", async () => {
  // The real executors are frozen meanwhile, so that this one takes the jobs.
  const frozen = rig.of("executor");
  for (const s of frozen) s.child.kill("SIGSTOP");
  const connection = new Redis(rig.redis.url, { maxRetriesPerRequest: null });
  let taken = 0;
  const holder = new Worker(
    ATTEMPT_QUEUE,
    (job) => {
      taken += attemptsOfJob(job.data).length;
      return new Promise(() => {});
    },
    { connection, prefix: "ttr", concurrency: 5, skipVersionCheck: true },
  );
  const due = new Map<string, Date>();
  for (let i = 0; i < 5; i++) due.set(`held/${i}`, secondAfter(1000));
  await Promise.all([...due].map(([p, at]) => rig.schedule(p, at)));
  await until(() => taken === 5, 10_000, "the doomed executor takes all five");
  // dispatched and not started: the scheduler counts them as waiting, one per attempt (not per job)
  expect(await metric(rig.of("scheduler")[0]!, "ttr_queue_depth")).toBe(5);
  const diedAt = Date.now();
  connection.disconnect();
  await holder.close(true).catch(() => {});
  for (const s of frozen) s.child.kill("SIGCONT");
  const arrivals = await deliveredOnce(rig, due, 25_000);
  expect(Math.max(...arrivals) - diedAt).toBeLessThan(15_000);
  figure("executor died holding jobs it never started", "sent after it died", (Math.max(...arrivals) - diedAt) / 1000, "s");
}, 60_000);

it("an executor started while PostgreSQL is down answers /healthz 200 and /readyz 503 at once, and sends once it is back", async () => {
  await rig.pg.stop("fast");
  let executor: Awaited<ReturnType<Rig["start"]>>;
  try {
    const started = Date.now();
    executor = await rig.start("executor", {}, false);
    const healthy = await until(async () => (await probe(executor, "/healthz"))?.status === 200, 10_000, "/healthz 200 with PostgreSQL down");
    expect((await probe(executor, "/readyz"))?.status).toBe(503);
    // its Redis connection, made at start, may still be on its way on a loaded machine: then both are named, for a moment
    await until(async () => JSON.stringify((await probe(executor, "/readyz"))?.json()) === JSON.stringify({ status: "unavailable", down: ["postgres"] }), 5000, "/readyz 503 naming postgres alone");
    figure("executor started with PostgreSQL down", "/healthz answered 200 after", (healthy - started) / 1000, "s");
  } finally {
    await rig.pg.start();
  }
  await until(async () => (await probe(executor, "/readyz"))?.status === 200, 20_000, "/readyz 200 once PostgreSQL is back");
  // only the new executor is awake to send
  const others = rig.of("executor").filter((s) => s !== executor);
  for (const s of others) s.child.kill("SIGSTOP");
  try {
    const due = new Map([["late-start/0", secondAfter(1000)]]);
    await rig.schedule("late-start/0", due.get("late-start/0")!);
    await deliveredOnce(rig, due, 15_000);
  } finally {
    for (const s of others) s.child.kill("SIGCONT");
  }
}, 60_000);

it("an executor sent SIGTERM while Redis is down, holding no job, exits 0 at once rather than after its grace period", async () => {
  const executor = await rig.start("executor", { EXECUTOR_SHUTDOWN_GRACE_SECONDS: "60" });
  await rig.redis.stop();
  try {
    await until(async () => (await probe(executor, "/readyz"))?.status === 503, 10_000, "the executor sees Redis down");
    const asked = Date.now();
    expect(await rig.kill(executor, "SIGTERM")).toBe(0);
    const took = Date.now() - asked;
    expect(took).toBeLessThan(5000);
    figure("executor stopped while Redis is down", "exited after", took / 1000, "s");
  } finally {
    await rig.redis.start();
  }
}, 60_000);

it("an executor sent SIGTERM while PostgreSQL is down, holding jobs it could not start, exits 0 without waiting for PostgreSQL; the attempts stay planned and are each sent once after", async () => {
  const executor = await rig.start("executor", { EXECUTOR_SHUTDOWN_GRACE_SECONDS: "60" });
  // only this executor takes the jobs, once it wakes with PostgreSQL down
  const others = rig.of("executor").filter((s) => s !== executor);
  for (const s of [executor, ...others]) s.child.kill("SIGSTOP");
  const due = new Map<string, Date>();
  for (let i = 0; i < 3; i++) due.set(`unstarted/${i}`, secondAfter(1000));
  await Promise.all([...due].map(([p, at]) => rig.schedule(p, at)));
  await until(async () => (await metric(rig.of("scheduler")[0]!, "ttr_queue_depth")) === 3, 10_000, "the three are in the queue");
  await rig.pg.stop("fast");
  let exit: { code: number | null; took: number };
  try {
    executor.child.kill("SIGCONT");
    // it takes the jobs and cannot start their attempts
    await until(() => jsonLines(executor).some((l) => l.message === "postgres unavailable"), 15_000, "the executor waits for PostgreSQL");
    const asked = Date.now();
    const code = await rig.kill(executor, "SIGTERM");
    exit = { code, took: Date.now() - asked };
  } finally {
    await rig.pg.start();
    for (const s of others) s.child.kill("SIGCONT");
  }
  expect(exit.code).toBe(0);
  expect(exit.took).toBeLessThan(5000);
  figure("executor stopped while PostgreSQL is down, holding unstarted jobs", "exited after", exit.took / 1000, "s");
  await deliveredOnce(rig, due, 30_000);
}, 90_000);
