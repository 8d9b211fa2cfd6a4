// Due planned attempts (first attempts, retries, replays) → the executor
// queue, after admission under the tags' policies. A held attempt stays
// planned, parked under the tag that held it, and is looked at again at
// every tick (docs/api/tag-policies.md, when a limit is reached); its trigger keeps its
// status (queued, or retrying).
import { ATTEMPT_JOB, attemptJobOptions, attemptJobs, executionIdsOf } from "@ttr/core";
import type { JobType } from "bullmq";
import { type AttemptRef, type DispatchCandidate, holdAttempts, markDispatched, selectDispatchable, selectHeld, type SqlRunner, staleDispatched } from "@ttr/db";
import { markDropped } from "@ttr/platform";
import { type Deps, fenced } from "./deps.js";

/** The job id of a copy beside a stuck job: see requeueLost. */
const copyId = (executionId: string) => `${executionId}-again`;

/**
 * Puts dispatched attempts (oldest due first) into the executors' queue, in
 * jobs of up to ATTEMPTS_PER_JOB (@ttr/core, attemptJobs); or `asCopies`,
 * each alone as a second job beside one that is stuck.
 */
export async function enqueue(deps: Pick<Deps, "queue">, refs: AttemptRef[], asCopies = false): Promise<void> {
  if (refs.length === 0) return;
  await deps.queue.addBulk(
    asCopies
      ? refs.map(({ executionId, partDay }) => ({ name: ATTEMPT_JOB, data: { executionId, partDay }, opts: { ...attemptJobOptions(), jobId: copyId(executionId) } }))
      : attemptJobs(refs),
  );
}

/** Job states in which a job will still be, or is being, worked on. */
const LIVE_STATES = ["waiting", "prioritized", "delayed", "waiting-children", "active"] as const satisfies readonly JobType[];
export type LiveState = (typeof LIVE_STATES)[number];
/** Jobs of each state looked at by attemptsInQueue, at most (unless told otherwise). */
export const LISTED_PER_STATE = 10_000;
/** Jobs whose data is read per round trip. */
const LIST_PAGE = 250;

export interface QueuedJob {
  state: LiveState;
  /** when an executor took the job (active jobs) */
  processedOn?: number;
}

/**
 * The attempts the queue's live jobs carry (waiting, delayed or being
 * worked on), each with its job's state and when an executor took it; an
 * attempt carried by a job that waits and by one taken (a copy beside a
 * stuck job) counts as waiting. A job of several attempts is not known by
 * any of their ids, so this reads the ids of each state's jobs, oldest first
 * and in one command (a consistent snapshot, while executors take jobs),
 * then their data and start time only (pipelined HMGETs: BullMQ's
 * whole-job reads cost several times more with a backlog), at most `cap`
 * jobs of each state; with `wanted`, it stops reading data once it has
 * found all of those. An attempt beyond what was read is not found: the
 * caller decides (see requeueLost).
 */
export async function attemptsInQueue(deps: Pick<Deps, "queue" | "redis">, wanted?: ReadonlySet<string>, cap = LISTED_PER_STATE): Promise<Map<string, QueuedJob>> {
  const found = new Map<string, QueuedJob>();
  let missing = wanted?.size ?? Number.POSITIVE_INFINITY;
  for (const state of LIVE_STATES) {
    if (missing === 0) break;
    const ids = await deps.queue.getRanges([state], 0, cap - 1, true);
    for (let from = 0; from < ids.length && missing > 0; from += LIST_PAGE) {
      const page = ids.slice(from, from + LIST_PAGE);
      const replies = (await deps.redis.pipeline(page.map((id) => ["hmget", deps.queue.toKey(id), "data", "processedOn"])).exec()) ?? [];
      for (const [err, reply] of replies) {
        const [data, processedOn] = (err ? [] : reply) as [string | null, string | null];
        if (!data) continue; // gone since the ids were read
        let carried: string[];
        try {
          carried = executionIdsOf(JSON.parse(data));
        } catch {
          continue; // not JSON: nothing of ttr's
        }
        for (const id of carried) {
          if (found.has(id)) continue; // seen in an earlier state: waiting wins over taken
          if (wanted?.has(id)) missing--;
          found.set(id, { state, processedOn: processedOn ? Number(processedOn) : undefined });
        }
      }
    }
  }
  return found;
}

/** The first of a candidate's tags found in `full`, if any. */
function fullTagOf(c: DispatchCandidate, full: Set<string>): string | undefined {
  return c.tags.find((tag) => full.has(`${c.projectId}:${tag}`));
}

/**
 * Admits what it can of `candidates` (oldest first) and parks the rest
 * under the tag that held each back. Candidates carrying a tag already found
 * full in this pass are parked without asking, so that a tag's older
 * attempts keep their turn (docs/api/tag-policies.md, when a limit is reached).
 */
async function admitOrHold(deps: Deps, tx: SqlRunner, candidates: Array<DispatchCandidate & { heldBy?: string }>, now: Date, full: Set<string>) {
  const ask = candidates.filter((c) => fullTagOf(c, full) === undefined);
  const { admitted, blocked } = await deps.admission.admit(ask, now);
  for (const pt of blocked) full.add(pt);
  const ok = new Set(admitted.map((c) => c.executionId));
  const held: Array<AttemptRef & { tag: string }> = [];
  for (const c of candidates) {
    if (ok.has(c.executionId)) continue;
    // Every candidate not admitted has a tag that is full now.
    const tag = fullTagOf(c, full) ?? c.tags[0] ?? "";
    if (tag !== c.heldBy) held.push({ executionId: c.executionId, partDay: c.partDay, tag });
  }
  await holdAttempts(tx, held);
  // Admitted but no longer planned (cancelled meanwhile): give their slots back.
  const marked = new Set(await markDispatched(tx, admitted));
  return {
    ids: admitted.filter((c) => marked.has(c.executionId)),
    released: admitted.filter((c) => !marked.has(c.executionId)),
  };
}

async function afterCommit(deps: Deps, ids: AttemptRef[], released: DispatchCandidate[]): Promise<void> {
  for (const c of released) await markDropped(deps.redis, deps.env.TTR_REDIS_PREFIX, c.projectId, c.tags, c.executionId);
  // Frozen between commit and here, past the lease: the replica that took
  // over enqueues these (recoverQueue), not this one.
  if (!deps.lease.held()) return;
  await enqueue(deps, ids);
  deps.metrics.dispatched.inc(ids.length);
}

/**
 * Dispatches one batch (at most `limit`) of due attempts that are not held, parking those a
 * policy holds back (`full` grows with the tags found full). Returns how
 * many candidates it looked at.
 */
export async function dispatchBatch(deps: Deps, now: Date, full: Set<string>, limit: number): Promise<number> {
  const { seen, ids, released } = await fenced(deps, async (tx) => {
    const candidates = await selectDispatchable(tx, now, limit);
    return { seen: candidates.length, ...(await admitOrHold(deps, tx, candidates, now, full)) };
  });
  await afterCommit(deps, ids, released);
  return seen;
}

/**
 * Looks again at held attempts: for each tag holding some that is not in
 * `full`, its oldest ones, admitted while the policies allow. Returns how
 * many it dispatched.
 */
export async function dispatchHeld(deps: Deps, now: Date, full: Set<string>, limit: number): Promise<number> {
  const { ids, released } = await fenced(deps, async (tx) => {
    const candidates = await selectHeld(tx, now, limit, full);
    return admitOrHold(deps, tx, candidates, now, full);
  });
  await afterCommit(deps, ids, released);
  return ids.length;
}

/** A job normally starts within a second of its dispatch; one still not started after this is looked at. */
export const STALE_AFTER_MS = 5000;

/**
 * Attempts dispatched before `dispatchedBefore` and still planned that no
 * live job carries (their job failed before it started them, its executor
 * died holding it, or it is gone) are enqueued again, oldest due first. So
 * are those whose job was taken before `activeBefore` and that have not
 * started: an executor that took a job normally starts its attempts within
 * milliseconds, so such a job is held by an executor that died, or was taken
 * in a command whose answer a Redis outage lost, or its executor's attempt
 * slots are all busy (its last job's extra attempts wait for one). That job
 * cannot be removed while its lock lasts, so a copy of the attempt is added
 * beside it, one at a time (the copy's id is fixed), and whichever an
 * executor starts first is sent: the executor starts an attempt only from
 * `planned`, so neither can ever send twice. (A queue that lost everything
 * is QueueRecovery's.)
 */
export async function requeueLost(deps: Omit<Deps, "recovery">, dispatchedBefore: Date, activeBefore: Date): Promise<number> {
  const stale = await staleDispatched(deps.db, dispatchedBefore, 500);
  if (stale.length === 0) return 0;
  const queued = await attemptsInQueue(deps, new Set(stale.map((ref) => ref.executionId)));
  const unseen: AttemptRef[] = [];
  const stuck: AttemptRef[] = [];
  for (const ref of stale) {
    const job = queued.get(ref.executionId);
    if (!job) unseen.push(ref);
    else if (job.state === "active" && (job.processedOn ?? Number.POSITIVE_INFINITY) < activeBefore.getTime()) stuck.push(ref);
  }
  // Not seen among the jobs read: a job of one attempt, named by it, may
  // still be live beyond them (left alone), or failed and kept a while
  // under the attempt's id (removed, so that adding the attempt again is
  // not a no-op).
  const states = await Promise.all(unseen.map((ref) => deps.queue.getJobState(ref.executionId)));
  const lost: AttemptRef[] = [];
  const ended: string[] = [];
  for (const [i, ref] of unseen.entries()) {
    if (states[i] === "failed" || states[i] === "completed") ended.push(ref.executionId);
    else if (states[i] !== "unknown") continue;
    lost.push(ref);
  }
  await Promise.all(ended.map((id) => deps.queue.remove(id).catch(() => 0)));
  // An earlier copy that failed or ended is removed the same way; one still
  // taken is locked and stays (adding beside it is then a no-op).
  await Promise.all(stuck.map((ref) => deps.queue.remove(copyId(ref.executionId)).catch(() => 0)));
  if (!deps.lease.held()) return 0;
  await enqueue(deps, lost);
  await enqueue(deps, stuck, true);
  deps.metrics.requeued.inc(lost.length + stuck.length);
  return lost.length + stuck.length;
}
