// Queue jobs name the day their attempt is stored under, so the executor
// reads one day's partition. A job that does not (enqueued by a version
// before jobs named it), or whose attempt has since moved to a newer day
// (retention carries pending rows forward), is still sent, once, and one
// carried forward while in flight is recorded under its new day. A job
// carries one attempt or several dispatched together: each is sent once, and
// one that cannot start does not hold the others back.
import { ATTEMPT_JOB, attemptJobOptions, attemptJobs } from "@ttr/core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { dispatchedAttempt, eventually, executionsOf, triggerById } from "../support/rows.js";
import { printLogsOnFailure, startSystem, type System } from "../support/system.js";
import { type AttemptQueue, attemptQueue } from "../support/queue.js";
import { startTarget, type Target } from "../support/target.js";

let sys: System;
printLogsOnFailure(() => sys);
let target: Target;
let jobs: AttemptQueue;

beforeAll(async () => {
  target = await startTarget();
  // No scheduler: the jobs below are put into the queue by hand.
  sys = await startSystem({ schedulers: 0 });
  jobs = attemptQueue(sys);
});
afterAll(async () => {
  await jobs?.close();
  await sys?.stop();
  await target?.close();
});

/** A dispatched attempt of a GET of the target's `path`, stored `daysAhead` days after today. */
function dispatched(path: string, daysAhead: number) {
  return dispatchedAttempt(sys.db, sys.projectId, `${target.base}${path}`, daysAhead);
}

async function sentOnce(path: string, triggerId: string) {
  await target.waitFor(path, 1);
  await eventually(async () => ((await triggerById(sys.db, triggerId))?.status === "completed" ? true : undefined), 5000, "the trigger to complete");
  const executions = await executionsOf(sys.db, triggerId);
  expect(executions).toHaveLength(1);
  expect(executions[0]).toMatchObject({ status: "complete", responseStatus: 200 });
  expect(target.hits(path)).toHaveLength(1);
}

it("a job naming its attempt's day is sent", async () => {
  const a = await dispatched("/named", 1);
  await jobs.queue.add(ATTEMPT_JOB, { executionId: a.executionId, partDay: a.partDay }, attemptJobOptions(a.executionId));
  await sentOnce("/named", a.triggerId);
});

it("a job without a day (from an older version) is sent once", async () => {
  const a = await dispatched("/no-day", 0);
  await jobs.queue.add(ATTEMPT_JOB, { executionId: a.executionId }, attemptJobOptions(a.executionId));
  await sentOnce("/no-day", a.triggerId);
});

it("a job naming a day its attempt has moved from is sent once", async () => {
  const a = await dispatched("/moved", 2);
  const earlier = new Date(Date.parse(`${a.partDay}T00:00:00Z`) - 2 * 86_400_000).toISOString().slice(0, 10);
  await jobs.queue.add(ATTEMPT_JOB, { executionId: a.executionId, partDay: earlier }, attemptJobOptions(a.executionId));
  await sentOnce("/moved", a.triggerId);
});

it("an attempt whose trigger retention carries to a newer day while it is in flight is recorded there with its answer", async () => {
  const a = await dispatched("/carried", 0);
  let answer: (() => void) | undefined;
  target.on("/carried", (_req, res) => {
    answer = () => res.writeHead(200, { "content-type": "text/plain" }).end("late answer");
  });
  await jobs.queue.add(ATTEMPT_JOB, { executionId: a.executionId, partDay: a.partDay }, attemptJobOptions(a.executionId));
  await target.waitFor("/carried", 1);
  // what a retention pass does to a pending trigger of a day it removes: its rows move to a newer day
  const later = new Date(Date.parse(`${a.partDay}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
  await sys.db.$queryRawUnsafe("SELECT ttr_ensure_partitions($1::date, $1::date)", later);
  await sys.db.$executeRawUnsafe("UPDATE triggers SET part_day = $2::date WHERE id = $1::uuid", a.triggerId, later);
  await sys.db.$executeRawUnsafe("UPDATE executions SET part_day = $2::date WHERE trigger_id = $1::uuid", a.triggerId, later);
  answer!();
  await eventually(async () => ((await triggerById(sys.db, a.triggerId))?.status === "completed" ? true : undefined), 5000, "the trigger to complete");
  const [recorded] = await executionsOf(sys.db, a.triggerId);
  expect(recorded).toMatchObject({ status: "complete", responseStatus: 200, responseBody: "late answer", errorMessage: null });
});

it("a job whose attempt does not exist is done with, not failed", async () => {
  const missing = "00000000-0000-7000-8000-000000000001";
  await jobs.queue.add(ATTEMPT_JOB, { executionId: missing, partDay: new Date().toISOString().slice(0, 10) }, attemptJobOptions(missing));
  // finished jobs are removed at once; a failed one would be kept as failed
  const state = await eventually(async () => {
    const s = await jobs.queue.getJobState(missing);
    return s === "unknown" || s === "failed" ? s : undefined;
  }, 5000, "the job to be taken");
  expect(state).toBe("unknown");
});

it("a job of several attempts sends each once, also beside an attempt that does not exist", async () => {
  const attempts = await Promise.all([0, 1, 2].map((i) => dispatched(`/group/${i}`, 0)));
  const missing = { executionId: "00000000-0000-7000-8000-000000000002", partDay: attempts[0]!.partDay };
  const [job, more] = attemptJobs([attempts[0]!, missing, attempts[1]!, attempts[2]!]);
  expect(more).toBeUndefined();
  await jobs.queue.add(job!.name, job!.data, job!.opts);
  for (const [i, a] of attempts.entries()) await sentOnce(`/group/${i}`, a.triggerId);
  // done with, not failed: the missing attempt is no error
  const failed = await jobs.queue.getJobCountByTypes("failed");
  expect(failed).toBe(0);
});
