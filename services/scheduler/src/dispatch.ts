// Due planned attempts (first attempts, retries, replays) → the executor
// queue, after admission under the tags' policies. A held attempt stays
// planned and is looked at again on the next tick (SPEC §4 When a limit is
// reached 1); its trigger keeps its status (queued, or retrying).
import { ATTEMPT_JOB, attemptJobOptions } from "@ttr/core";
import { markDispatched, selectDispatchable, staleDispatched } from "@ttr/db";
import { markEnded } from "@ttr/platform";
import type { Deps } from "./deps.js";

async function enqueue(deps: Deps, executionIds: string[]): Promise<void> {
  if (executionIds.length === 0) return;
  await deps.queue.addBulk(executionIds.map((executionId) => ({ name: ATTEMPT_JOB, data: { executionId }, opts: attemptJobOptions(executionId) })));
}

/**
 * Dispatches one batch, skipping tags found full earlier in this pass (`full`
 * grows with the ones found now). Returns how many candidates it looked at.
 */
export async function dispatchBatch(deps: Deps, now: Date, full: Set<string>): Promise<number> {
  const limit = deps.env.SCHEDULER_BATCH_SIZE;
  const { seen, ids, released } = await deps.db.$transaction(async (tx) => {
    const candidates = await selectDispatchable(tx, now, limit, full);
    const { admitted, blocked } = await deps.admission.admit(candidates, now);
    for (const pt of blocked) full.add(pt);
    const ids = await markDispatched(tx, admitted.map((c) => c.executionId));
    // Admitted but no longer planned (cancelled meanwhile): give their slots back.
    const marked = new Set(ids);
    return { seen: candidates.length, ids, released: admitted.filter((c) => !marked.has(c.executionId)) };
  });
  for (const c of released) await markEnded(deps.redis, deps.env.TTR_REDIS_PREFIX, c.projectId, c.tags, c.executionId);
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
