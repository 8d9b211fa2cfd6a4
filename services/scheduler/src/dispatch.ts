// Due planned attempts (first attempts, retries, replays) → the executor
// queue, after admission under the tags' policies. A held attempt stays
// planned and is looked at again on the next tick (SPEC §4 When a limit is
// reached 1).
import { ATTEMPT_JOB, attemptJobOptions } from "@ttr/core";
import { markDispatched, selectDispatchable, staleDispatched } from "@ttr/db";
import type { Admission, Deps } from "./deps.js";

/** Admits everything: no policy limits (the tag-policy admission replaces it). */
export const admitAll: Admission = { admit: async (candidates) => candidates };

async function enqueue(deps: Deps, executionIds: string[]): Promise<void> {
  if (executionIds.length === 0) return;
  await deps.queue.addBulk(executionIds.map((executionId) => ({ name: ATTEMPT_JOB, data: { executionId }, opts: attemptJobOptions(executionId) })));
}

/** Dispatches one batch; returns how many candidates it looked at. */
export async function dispatchBatch(deps: Deps, now: Date): Promise<number> {
  const limit = deps.env.SCHEDULER_BATCH_SIZE;
  const { seen, ids } = await deps.db.$transaction(async (tx) => {
    const candidates = await selectDispatchable(tx, now, limit);
    const admitted = await deps.admission.admit(candidates, now);
    return { seen: candidates.length, ids: await markDispatched(tx, admitted.map((c) => c.executionId)) };
  });
  deps.metrics.held.set(seen - ids.length);
  await enqueue(deps, ids);
  deps.metrics.dispatched.inc(ids.length);
  return seen;
}

/**
 * Attempts dispatched a minute ago and still planned whose queue job is gone
 * (the scheduler died between commit and enqueue, or BullMQ failed a job that
 * never started) are enqueued again. The executor starts an attempt only from
 * `planned`, so a duplicate job can never send twice.
 */
export async function requeueLost(deps: Deps, now: Date): Promise<number> {
  const stale = await staleDispatched(deps.db, new Date(now.getTime() - 60_000), 500);
  const lost: string[] = [];
  for (const id of stale) {
    const state = await deps.queue.getJobState(id);
    if (state === "waiting" || state === "active" || state === "delayed" || state === "prioritized" || state === "waiting-children") continue;
    if (state !== "unknown") await deps.queue.remove(id).catch(() => 0);
    lost.push(id);
  }
  await enqueue(deps, lost);
  deps.metrics.requeued.inc(lost.length);
  return lost.length;
}
