// Writes a planned declaration (packages/core declare.ts) with the
// set-based statements of @ttr/db, in an order that keeps the invariants:
// replaced and removed triggers are cancelled before their keys are reused,
// and the upcoming instance of a recurring trigger is cancelled before its
// new one is created (triggers_one_pending_instance allows one).
import type { PlanWrites } from "@ttr/core";
import * as db from "@ttr/db";
import type { SqlRunner } from "@ttr/db";

function expectAll(what: string, planned: number, done: number): void {
  // Candidates are locked when read, so a shortfall means a bug, not a race:
  // fail the transaction rather than answer for writes that did not happen.
  if (done !== planned) throw new Error(`${what}: planned ${planned}, wrote ${done}`);
}

/** `waitingInstances`: a cancelled recurring trigger takes its queued and retrying instances along (/declare). */
export async function writePlan(tx: SqlRunner, projectId: string, w: PlanWrites, opts: { waitingInstances: boolean }): Promise<void> {
  await db.cancelJobRows(tx, projectId, w.cancelJobs);
  await db.cancelGeneratorRows(tx, projectId, w.cancelGenerators, opts.waitingInstances);
  expectAll("update one-shots", w.updateJobs.length, (await db.updateJobRows(tx, projectId, w.updateJobs)).length);
  expectAll("create one-shots", w.insertJobs.length, (await db.insertJobRows(tx, projectId, w.insertJobs)).length);
  expectAll("update recurring", w.updateGenerators.length, (await db.updateGeneratorRows(tx, projectId, w.updateGenerators)).length);
  expectAll("create recurring", w.insertGenerators.length, (await db.insertGeneratorRows(tx, projectId, w.insertGenerators)).length);
  await db.cancelUpcomingInstances(tx, projectId, w.nextInstances.map((n) => n.generatorId));
  await db.createNextInstances(tx, w.nextInstances);
}
