// An executor is done with a queue job once its attempts are sent: their
// outcomes are recorded afterwards, holding neither a slot nor the job, so
// the next job is taken at once (docs/concepts.md, the queue). A shutdown
// still waits for those recordings. Here a finish statement waits 1 s for
// company and the executor sends one attempt at a time, so a second job
// sent before the first outcome is recorded can only come from that.
import { ATTEMPT_JOB, attemptJobOptions } from "@ttr/core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { dispatchedAttempt, eventually, executionsOf, settled } from "../support/rows.js";
import { type Service, printLogsOnFailure, startSystem, type System } from "../support/system.js";
import { type AttemptQueue, attemptQueue } from "../support/queue.js";
import { startTarget, type Target } from "../support/target.js";

const FINISH_LINGER_MS = 1000;

let sys: System;
printLogsOnFailure(() => sys);
let target: Target;
let jobs: AttemptQueue;

beforeAll(async () => {
  target = await startTarget();
  // No scheduler and no executor of the system's own: each test starts one.
  sys = await startSystem({ schedulers: 0, executors: 0 });
  jobs = attemptQueue(sys);
});
afterAll(async () => {
  await jobs?.close();
  await sys?.stop();
  await target?.close();
});

function startExecutor(): Promise<Service> {
  return sys.startService("executor", { EXECUTOR_CONCURRENCY: "1", EXECUTOR_FINISH_LINGER_MS: String(FINISH_LINGER_MS) });
}

/** Dispatched attempts of GETs of `paths`, each in a queue job of its own, added in order. */
async function queued(paths: string[]) {
  const attempts = [];
  for (const path of paths) attempts.push(await dispatchedAttempt(sys.db, sys.projectId, `${target.base}${path}`));
  for (const a of attempts) await jobs.queue.add(ATTEMPT_JOB, { executionId: a.executionId, partDay: a.partDay }, attemptJobOptions(a.executionId));
  return attempts;
}

/** When the trigger's row last changed: its outcome's recording, once it is completed. */
async function recordedAt(triggerId: string): Promise<number> {
  const [row] = await sys.db.$queryRawUnsafe<Array<{ status: string; updatedAt: Date }>>(
    `SELECT status::text, updated_at AS "updatedAt" FROM triggers WHERE id = $1::uuid`,
    triggerId,
  );
  expect(row?.status).toBe("completed");
  return row!.updatedAt.getTime();
}

it("takes the next job while the last one's outcome waits to be recorded", async () => {
  const executor = await startExecutor();
  try {
    const [first, second] = await queued(["/next/1", "/next/2"]);
    const [hit2] = await target.waitFor("/next/2", 1, 10_000);
    const [hit1] = target.hits("/next/1");
    expect(hit1).toBeDefined();
    await settled(sys.db, first!.triggerId, 1, 10_000);
    await settled(sys.db, second!.triggerId, 1, 10_000);
    // the second attempt went out in the one slot before the first outcome was recorded
    expect(hit2!.at).toBeLessThan(await recordedAt(first!.triggerId));
    // and each outcome was recorded after its statement's wait, not lost
    expect((await recordedAt(first!.triggerId)) - hit1!.at).toBeGreaterThanOrEqual(FINISH_LINGER_MS - 100);
    for (const a of [first!, second!]) expect(await executionsOf(sys.db, a.triggerId)).toMatchObject([{ status: "complete", responseStatus: 200 }]);
  } finally {
    await sys.kill(executor, "SIGKILL");
  }
});

it("a shutdown waits for the outcomes still being recorded", async () => {
  const executor = await startExecutor();
  const [a] = await queued(["/shutdown"]);
  await target.waitFor("/shutdown", 1, 10_000);
  // sent, its job done with, its outcome waiting for its statement
  await eventually(async () => ((await jobs.queue.getJobState(a!.executionId)) === "unknown" ? true : undefined), 5000, "the job to be done with");
  expect(await executionsOf(sys.db, a!.triggerId)).toMatchObject([{ status: "started" }]);
  const code = await sys.kill(executor, "SIGTERM");
  expect(code).toBe(0);
  expect(await executionsOf(sys.db, a!.triggerId)).toMatchObject([{ status: "complete", responseStatus: 200 }]);
});
