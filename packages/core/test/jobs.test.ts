import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ATTEMPT_JOB, ATTEMPTS_JOB, ATTEMPTS_PER_JOB, attemptJobs, attemptsOfJob, executionIdsOf } from "../src/jobs.js";

const ref = (n: number) => ({ executionId: `00000000-0000-7000-8000-${String(n).padStart(12, "0")}`, partDay: "2026-11-27" });
const refs = (count: number) => Array.from({ length: count }, (_, i) => ref(i));

describe("attemptJobs", () => {
  it("puts one attempt in a job of its own, named by its execution", () => {
    expect(attemptJobs([ref(1)])).toEqual([
      { name: ATTEMPT_JOB, data: ref(1), opts: { jobId: ref(1).executionId, attempts: 1, removeOnComplete: true, removeOnFail: { count: 1000 } } },
    ]);
  });

  it("puts attempts dispatched together in shared jobs of about equal size, with ids from the queue", () => {
    const jobs = attemptJobs(refs(25));
    expect(jobs.map((j) => attemptsOfJob(j.data).length)).toEqual([13, 12]);
    expect(jobs.map((j) => j.name)).toEqual([ATTEMPTS_JOB, ATTEMPTS_JOB]);
    expect(jobs.every((j) => !("jobId" in j.opts))).toBe(true);
    expect(attemptJobs(refs(ATTEMPTS_PER_JOB))).toHaveLength(1);
    expect(attemptJobs(refs(ATTEMPTS_PER_JOB + 1)).map((j) => attemptsOfJob(j.data).length)).toEqual([11, 10]);
    expect(attemptJobs([])).toEqual([]);
  });

  it("keeps every attempt exactly once, in order, none beyond the most a job carries", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 500 }), (count) => {
        const jobs = attemptJobs(refs(count));
        const sizes = jobs.map((j) => attemptsOfJob(j.data).length);
        expect(jobs.flatMap((j) => attemptsOfJob(j.data))).toEqual(refs(count));
        expect(jobs).toHaveLength(Math.ceil(count / ATTEMPTS_PER_JOB));
        expect(Math.max(...sizes)).toBeLessThanOrEqual(ATTEMPTS_PER_JOB);
        expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
      }),
    );
  });

  it("drops anything but the id and day of each attempt", () => {
    const [job] = attemptJobs([{ ...ref(1), plannedAt: new Date() } as ReturnType<typeof ref>, ref(2)]);
    expect(job?.data).toEqual({ attempts: [ref(1), ref(2)] });
  });
});

describe("attemptsOfJob", () => {
  it("reads a job of one attempt, with or without its day (jobs of earlier versions), and a job of several", () => {
    expect(attemptsOfJob(ref(1))).toEqual([ref(1)]);
    expect(attemptsOfJob({ executionId: ref(1).executionId })).toEqual([{ executionId: ref(1).executionId }]);
    expect(attemptsOfJob({ attempts: [ref(1), ref(2)] })).toEqual([ref(1), ref(2)]);
  });

  it.each([
    ["no attempts", { attempts: [] }],
    ["an attempt without its id", { attempts: [ref(1), { partDay: "2026-11-27" }] }],
    ["an id that is no UUID", { executionId: "x" }],
    ["a malformed day", { executionId: ref(1).executionId, partDay: "27/11/2026" }],
    ["an unknown field", { ...ref(1), extra: 1 }],
    ["nothing", null],
  ])("refuses %s", (_, data) => {
    expect(() => attemptsOfJob(data)).toThrow(/^invalid attempt job: /);
  });
});

describe("executionIdsOf", () => {
  it("names the attempts of either kind of job, in order", () => {
    expect(executionIdsOf(ref(1))).toEqual([ref(1).executionId]);
    expect(executionIdsOf({ attempts: [ref(1), ref(2)] })).toEqual([ref(1).executionId, ref(2).executionId]);
    for (const job of attemptJobs(refs(45))) expect(executionIdsOf(job.data)).toEqual(attemptsOfJob(job.data).map((a) => a.executionId));
  });

  it("names nothing for data of another shape, without throwing", () => {
    for (const data of [null, 1, "x", {}, { attempts: "x" }, { executionId: 7 }]) expect(executionIdsOf(data)).toEqual([]);
    expect(executionIdsOf({ attempts: [null, { executionId: 3 }, ref(2)] })).toEqual([ref(2).executionId]);
  });
});
