// Applies an accepted /declare or /bulk call inside one transaction (every
// item has passed its checks already). The whole call is atomic: a failure
// midway rolls everything back and the tag's set stays as it was. This is
// stricter than the interface needs (it would allow a partial result).
import { type DeclaredItem, type Operation, planDeclare, planUpserts } from "@ttr/core";
import type { SqlRunner } from "@ttr/db";
import * as db from "@ttr/db";
// Time-ordered ids (UUIDv7): new rows land at the end of each index.
import { newId } from "../ids.js";
import { type CancelEntry, cancelTargets, planCancels } from "./cancels.js";
import type { RawCancel } from "./schema.js";
import { writePlan } from "./write.js";

/**
 * Large declarations take a while to write, and a busy pool a while to hand
 * out a connection. 10 MiB of minimal keyless items is about 950,000 of
 * them: declared again, that is 950,000 cancelled and as many written, which
 * took up to 80 s on a 2-core machine; 60 s made every such repeat fail.
 */
export const TRANSACTION_OPTIONS = { maxWait: 10_000, timeout: 300_000 };

export interface DeclareCall {
  projectId: string;
  tag: string;
  items: DeclaredItem[];
  /** the request moment */
  now: Date;
  runMissed: boolean;
}

/** docs/api/declare-and-bulk.md: the operations, items in request order, then the cancellations. */
export async function applyDeclare(tx: SqlRunner, call: DeclareCall): Promise<Operation[]> {
  const { projectId, tag } = call;
  await db.lockProjectDeclarations(tx, projectId);
  // A /schedule of one of these keys waits, or is waited for: never both create it.
  await db.lockCustomKeys(tx, projectId, keysOf(call.items));
  // One-shots and instances are locked before recurring triggers, in the scheduler's order.
  const jobs = await db.declareCandidateJobs(tx, projectId, tag);
  // Next runs count from the moment the instances are locked, not from the request (core/declare.ts, runsFrom).
  const runsFrom = new Date();
  const generators = await db.declareCandidateGenerators(tx, projectId, tag);
  const plan = planDeclare({ items: call.items, jobs, generators, now: call.now, runsFrom, runMissed: call.runMissed, newId });
  await writePlan(tx, projectId, plan.writes, { waitingInstances: true });
  return [...plan.items, ...plan.cancelled];
}

export interface BulkCall {
  projectId: string;
  upserts: DeclaredItem[];
  cancels: RawCancel[];
  now: Date;
  runMissed: boolean;
}

/**
 * docs/api/declare-and-bulk.md. Cancels act on the triggers that existed
 * before the call and run first, so an upsert is never cancelled by the
 * call that made it and an upsert whose old trigger was cancelled creates
 * a new one.
 */
export async function applyBulk(tx: SqlRunner, call: BulkCall): Promise<{ upserts: Operation[]; cancelled: CancelEntry[] }> {
  const { projectId } = call;
  await db.lockProjectDeclarations(tx, projectId);
  const keys = keysOf(call.upserts);
  await db.lockCustomKeys(tx, projectId, keys);

  const targets = cancelTargets(call.cancels);
  const cancels = planCancels(targets, await db.resolveCancelTargets(tx, projectId, targets));
  const jobs = new Set(await db.cancelJobRows(tx, projectId, cancels.jobs));
  await db.skipCancelledRuns(tx, cancels.namedById.filter((j) => jobs.has(j.id)));
  const generators = new Set(await db.cancelGeneratorRows(tx, projectId, cancels.generators, false));
  // A target not locked when resolved may have moved on meanwhile: only what was cancelled is reported.
  const cancelled = cancels.entries.filter((e) => (e.kind === "job" ? jobs : generators).has(e.id));

  const pendingJobs = await db.pendingJobsByKey(tx, projectId, keys);
  const activeGenerators = await db.activeGeneratorsByKey(tx, projectId, keys);
  const plan = planUpserts({
    items: call.upserts,
    jobs: pendingJobs,
    generators: activeGenerators,
    now: call.now,
    // next runs count from now that the rows are locked (core/declare.ts, runsFrom)
    runsFrom: new Date(),
    runMissed: call.runMissed,
    newId,
  });
  await writePlan(tx, projectId, plan.writes, { waitingInstances: false });
  return { upserts: plan.items, cancelled };
}

/** The distinct custom keys of the items. */
function keysOf(items: DeclaredItem[]): string[] {
  return [...new Set(items.map((i) => i.customKey).filter((k): k is string => k !== null))];
}
