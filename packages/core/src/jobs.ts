// ttr's BullMQ jobs: each carries planned attempts, named by their
// executions, validated where they are enqueued and where they are picked
// up. The execution row, not the job, is the source of truth: an attempt
// whose execution is no longer `planned` is dropped by the executor.
//
// Attempts dispatched together travel together, up to ATTEMPTS_PER_JOB per
// job (docs/concepts.md, the queue): a queue job costs Redis and both ends
// of the queue about the same whatever it carries, and that cost, paid per
// attempt, was most of the queue's share of a fire.
import Joi from "joi";

export const ATTEMPT_QUEUE = "attempts";
/** A job of one attempt, its id the execution's: also what versions before groups enqueued. */
export const ATTEMPT_JOB = "attempt";
/** A job of several attempts dispatched together, oldest due first. */
export const ATTEMPTS_JOB = "attempts";
/** The most attempts one job carries. */
export const ATTEMPTS_PER_JOB = 20;

/** One planned attempt, as a job names it. */
export interface AttemptJob {
  executionId: string;
  /**
   * The UTC day (`YYYY-MM-DD`) the execution is stored under, so that the
   * executor reads only that day's partition. Absent from jobs enqueued by
   * versions before it was added; the executor then looks it up.
   */
  partDay?: string;
}

/** The data of an ATTEMPTS_JOB. */
export interface AttemptsJob {
  attempts: AttemptJob[];
}

const attemptSchema = Joi.object<AttemptJob>({
  executionId: Joi.string().guid().required(),
  partDay: Joi.string().pattern(/^\d{4}-\d{2}-\d{2}$/),
}).unknown(false);

const jobSchema = Joi.alternatives<AttemptJob | AttemptsJob>().try(
  attemptSchema,
  Joi.object<AttemptsJob>({ attempts: Joi.array().items(attemptSchema.required()).min(1).required() }).unknown(false),
);

/** The attempts a job carries, in its order; throws on data that is no attempt job. */
export function attemptsOfJob(data: unknown): AttemptJob[] {
  const { value, error } = jobSchema.validate(data);
  if (error) throw new Error(`invalid attempt job: ${error.message}`);
  return "attempts" in value ? value.attempts : [value];
}

/**
 * The execution ids a job's data names, read without validating it (empty
 * for data of another shape): for listing what thousands of queued jobs
 * carry, where attemptsOfJob's checks would cost more than the listing.
 */
export function executionIdsOf(data: unknown): string[] {
  if (typeof data !== "object" || data === null) return [];
  const { attempts, executionId } = data as { attempts?: unknown; executionId?: unknown };
  if (typeof executionId === "string") return [executionId];
  if (!Array.isArray(attempts)) return [];
  return attempts.flatMap((a: { executionId?: unknown } | null) => (typeof a?.executionId === "string" ? [a.executionId] : []));
}

/**
 * Job options: finished jobs are dropped at once so Redis memory stays flat.
 * A one-attempt job takes the execution ID as its id, which makes adding it
 * again while it waits a no-op; a job of several takes an id from the queue
 * (what it carries is not known by an id; see the scheduler's
 * attemptsInQueue).
 */
export function attemptJobOptions(executionId?: string) {
  return { ...(executionId === undefined ? {} : { jobId: executionId }), attempts: 1, removeOnComplete: true, removeOnFail: { count: 1000 } } as const;
}

/**
 * `refs` (oldest due first) as queue jobs of at most ATTEMPTS_PER_JOB
 * attempts, in that order and of about equal size: 25 go as 13 + 12, not
 * 20 + 5, so that executors share them evenly.
 */
export function attemptJobs(refs: ReadonlyArray<Required<AttemptJob>>): Array<{ name: string; data: AttemptJob | AttemptsJob; opts: ReturnType<typeof attemptJobOptions> }> {
  const count = Math.ceil(refs.length / ATTEMPTS_PER_JOB);
  const jobs = [];
  for (let i = 0, from = 0; i < count; i++) {
    const to = from + Math.ceil((refs.length - from) / (count - i));
    const attempts = refs.slice(from, to).map(({ executionId, partDay }) => ({ executionId, partDay }));
    const only = attempts.length === 1 ? attempts[0] : undefined;
    jobs.push(only ? { name: ATTEMPT_JOB, data: only, opts: attemptJobOptions(only.executionId) } : { name: ATTEMPTS_JOB, data: { attempts }, opts: attemptJobOptions() });
    from = to;
  }
  return jobs;
}
