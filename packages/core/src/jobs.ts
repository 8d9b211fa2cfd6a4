// The one BullMQ job of ttr: one job per planned attempt,
// named by its execution, validated where it is enqueued and where it is
// picked up. The execution row, not the job, is the source of truth: a job
// whose execution is no longer `planned` is dropped by the executor.
import Joi from "joi";

export const ATTEMPT_QUEUE = "attempts";
export const ATTEMPT_JOB = "attempt";

export interface AttemptJob {
  executionId: string;
  /**
   * The UTC day (`YYYY-MM-DD`) the execution is stored under, so that the
   * executor reads only that day's partition. Absent from jobs enqueued by
   * versions before it was added; the executor then looks it up.
   */
  partDay?: string;
}

export const attemptJobSchema = Joi.object<AttemptJob>({
  executionId: Joi.string().guid().required(),
  partDay: Joi.string().pattern(/^\d{4}-\d{2}-\d{2}$/),
}).unknown(false);

export function checkAttemptJob(data: unknown): AttemptJob {
  const { value, error } = attemptJobSchema.validate(data);
  if (error) throw new Error(`invalid attempt job: ${error.message}`);
  return value;
}

/**
 * Job options: the execution ID makes a re-enqueue of a waiting job a no-op;
 * finished jobs are dropped at once so Redis memory stays flat.
 */
export function attemptJobOptions(executionId: string) {
  return { jobId: executionId, attempts: 1, removeOnComplete: true, removeOnFail: { count: 1000 } } as const;
}
