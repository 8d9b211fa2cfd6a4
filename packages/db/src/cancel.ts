// Cancelling one trigger or recurring trigger, by ID or by custom key, with
// the answers DELETE /cancel gives (docs/api/cancel.md). The api's route and
// the CLI's `trigger cancel` share it.
import { gone, notFound } from "@ttr/core";
import { retryConflicts } from "./client.js";
import type { SqlRunner, Transactional } from "./sql.js";
import { skipCancelledRuns } from "./firing.js";
import * as t from "./triggers.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const notCancellable = (status: string) => gone(`Job is no longer cancellable (status=${status})`);

async function cancelById(tx: SqlRunner, projectId: string, id: string): Promise<void> {
  if (!UUID.test(id)) throw notFound("Job not found");
  const generator = await t.findGeneratorById(tx, projectId, id);
  if (generator) {
    if (generator.status !== "active") throw gone("Generator already cancelled");
    await t.cancelGenerator(tx, projectId, id);
    return;
  }
  const trigger = await t.findTriggerById(tx, projectId, id);
  if (!trigger) throw notFound("Job not found");
  if (!(await t.cancelTrigger(tx, projectId, id))) throw notCancellable(trigger.status);
  if (trigger.generatorId !== null) await skipCancelledRuns(tx, [trigger]);
}

/** When a recurring trigger and a one-shot share the key, the recurring one goes first. */
async function cancelByKey(tx: SqlRunner, projectId: string, key: string): Promise<void> {
  await t.lockCustomKey(tx, projectId, key);
  const generator = await t.findActiveGeneratorByKey(tx, projectId, key);
  if (generator) {
    await t.cancelGenerator(tx, projectId, generator.id);
    return;
  }
  const pending = await t.findPendingTriggerByKey(tx, projectId, key);
  if (pending) {
    await t.cancelTrigger(tx, projectId, pending.id);
    return;
  }
  // Only a queued, running or finished one-shot holds the key: say which.
  // A skipped one not found as pending is past retention: its key is free.
  const latest = await t.findLatestTriggerByKey(tx, projectId, key);
  if (!latest || latest.status === "cancelled" || latest.status === "skipped") throw notFound("Job not found");
  throw notCancellable(latest.status);
}

/**
 * Cancels in one transaction; throws the 404 or 410 the interface gives when
 * it cannot. The api runs it on its prepared-statement pool: planned on every
 * call, its statements spend ten times longer planning over a month of day
 * partitions than running (docs/storage.md).
 */
export function cancelOne(db: Transactional, projectId: string, target: { triggerId: string } | { customKey: string }): Promise<void> {
  return retryConflicts(() =>
    db.$transaction((tx) => ("triggerId" in target ? cancelById(tx, projectId, target.triggerId) : cancelByKey(tx, projectId, target.customKey))),
  );
}
