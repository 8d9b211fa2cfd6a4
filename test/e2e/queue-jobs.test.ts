// Queue jobs name the day their attempt is stored under, so the executor
// reads one day's partition. A job that does not (enqueued by a version
// before jobs named it), or whose attempt has since moved to a newer day
// (retention carries pending rows forward), is still sent, once. A job
// carries one attempt or several dispatched together: each is sent once, and
// one that cannot start does not hold the others back.
import { ATTEMPT_JOB, ATTEMPT_QUEUE, attemptJobOptions, attemptJobs } from "@ttr/core";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, beforeAll, expect, it } from "vitest";
import { eventually, executionsOf, triggerById } from "../support/rows.js";
import { startSystem, type System } from "../support/system.js";
import { startTarget, type Target } from "../support/target.js";

let sys: System;
let target: Target;
let redis: Redis;
let queue: Queue;

beforeAll(async () => {
  target = await startTarget();
  // No scheduler: the jobs below are put into the queue by hand.
  sys = await startSystem({ schedulers: 0 });
  redis = new Redis(sys.env.REDIS_URL as string, { maxRetriesPerRequest: null });
  queue = new Queue(ATTEMPT_QUEUE, { connection: redis, prefix: sys.env.TTR_REDIS_PREFIX });
});
afterAll(async () => {
  await queue?.close();
  redis?.disconnect();
  await sys?.stop();
  await target?.close();
});

/** A trigger promoted and dispatched as the scheduler leaves it, stored `daysAhead` days after today; returns its ids and day. */
async function dispatchedAttempt(path: string, daysAhead: number) {
  const [row] = await sys.db.$queryRawUnsafe<Array<{ triggerId: string; executionId: string; partDay: string }>>(
    `WITH t AS (
       INSERT INTO triggers (project_id, status, url, method, headers, tags, scheduled_at, attempts, part_day)
       VALUES ($1::uuid, 'queued', $2, 'GET', '[]', '{}', date_trunc('second', now()), 1, (now() AT TIME ZONE 'UTC')::date + $3::int)
       RETURNING id, project_id, part_day, scheduled_at
     ), e AS (
       INSERT INTO executions (trigger_id, project_id, attempt_number, triggered_by, status, planned_at, dispatched_at, part_day)
       SELECT id, project_id, 1, 'scheduler', 'planned', scheduled_at, now(), part_day FROM t
       RETURNING id, trigger_id, part_day
     )
     SELECT trigger_id::text AS "triggerId", id::text AS "executionId", part_day::text AS "partDay" FROM e`,
    sys.projectId,
    `${target.base}${path}`,
    daysAhead,
  );
  return row!;
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
  const a = await dispatchedAttempt("/named", 1);
  await queue.add(ATTEMPT_JOB, { executionId: a.executionId, partDay: a.partDay }, attemptJobOptions(a.executionId));
  await sentOnce("/named", a.triggerId);
});

it("a job without a day (from an older version) is sent once", async () => {
  const a = await dispatchedAttempt("/no-day", 0);
  await queue.add(ATTEMPT_JOB, { executionId: a.executionId }, attemptJobOptions(a.executionId));
  await sentOnce("/no-day", a.triggerId);
});

it("a job naming a day its attempt has moved from is sent once", async () => {
  const a = await dispatchedAttempt("/moved", 2);
  const earlier = new Date(Date.parse(`${a.partDay}T00:00:00Z`) - 2 * 86_400_000).toISOString().slice(0, 10);
  await queue.add(ATTEMPT_JOB, { executionId: a.executionId, partDay: earlier }, attemptJobOptions(a.executionId));
  await sentOnce("/moved", a.triggerId);
});

it("a job whose attempt does not exist is done with, not failed", async () => {
  const missing = "00000000-0000-7000-8000-000000000001";
  await queue.add(ATTEMPT_JOB, { executionId: missing, partDay: new Date().toISOString().slice(0, 10) }, attemptJobOptions(missing));
  // finished jobs are removed at once; a failed one would be kept as failed
  const state = await eventually(async () => {
    const s = await queue.getJobState(missing);
    return s === "unknown" || s === "failed" ? s : undefined;
  }, 5000, "the job to be taken");
  expect(state).toBe("unknown");
});

it("a job of several attempts sends each once, also beside an attempt that does not exist", async () => {
  const attempts = await Promise.all([0, 1, 2].map((i) => dispatchedAttempt(`/group/${i}`, 0)));
  const missing = { executionId: "00000000-0000-7000-8000-000000000002", partDay: attempts[0]!.partDay };
  const [job, more] = attemptJobs([attempts[0]!, missing, attempts[1]!, attempts[2]!]);
  expect(more).toBeUndefined();
  await queue.add(job!.name, job!.data, job!.opts);
  for (const [i, a] of attempts.entries()) await sentOnce(`/group/${i}`, a.triggerId);
  // done with, not failed: the missing attempt is no error
  const failed = await queue.getJobCountByTypes("failed");
  expect(failed).toBe(0);
});
