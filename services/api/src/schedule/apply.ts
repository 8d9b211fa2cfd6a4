// Applies one accepted /schedule call (docs/api/schedule.md) inside a
// transaction. Every check that must win over a write has already passed;
// what remains are the 404/410 of ID edits, which come after the quota unit.
import { gone, notFound, nextRunAfterSkips, oneShotStatus, type ScheduledAt, skipsKept } from "@ttr/core";
import * as t from "@ttr/db";
import type { RequestFields, SqlRunner } from "@ttr/db";
import type { OneShotInserts } from "./inserts.js";

type Once = Extract<ScheduledAt, { kind: "once" }>;
type Cron = Extract<ScheduledAt, { kind: "cron" }>;

export interface ScheduleCall {
  projectId: string;
  /** the request moment */
  now: Date;
  when: ScheduledAt;
  customKey: string | null;
  triggerId: string | null;
  runMissed: boolean;
  /** an edit without a key keeps the trigger's (/schedule), or leaves it with none (PUT /triggers) */
  keepsKey?: boolean;
  request: RequestFields;
}

export interface ScheduleResult {
  triggerId: string;
  scheduledAt: Date;
  operation: "schedule" | "reschedule";
  kind: "job" | "generator";
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

type PlainOneShotCall = ScheduleCall & { when: Once };

/** A new one-shot without key or ID: nothing to look up, so no transaction (one batched INSERT). */
export function isPlainOneShot(call: ScheduleCall): call is PlainOneShotCall {
  return call.when.kind === "once" && call.customKey === null && call.triggerId === null;
}

/** `forgotten`: run when the call answered 503 and its row turned out not to be stored (OneShotInserts). */
export async function applyPlainOneShot(inserts: OneShotInserts, call: PlainOneShotCall, forgotten?: () => Promise<void>): Promise<ScheduleResult> {
  const scheduledAt = call.when.at;
  const row = { projectId: call.projectId, status: oneShotStatus(call.when, call.now, call.runMissed), scheduledAt, request: call.request };
  const triggerId = await inserts.insert(row, call.now.getTime(), forgotten);
  return { triggerId, scheduledAt, operation: "schedule", kind: "job" };
}

export async function applySchedule(tx: SqlRunner, call: ScheduleCall): Promise<ScheduleResult> {
  if (call.customKey !== null) await t.lockCustomKey(tx, call.projectId, call.customKey);
  return call.when.kind === "cron" ? scheduleRecurring(tx, call, call.when) : scheduleOnce(tx, call, call.when);
}

async function scheduleOnce(tx: SqlRunner, call: ScheduleCall, when: Once): Promise<ScheduleResult> {
  const { projectId, customKey } = call;
  const status = oneShotStatus(when, call.now, call.runMissed);

  // Rule 3: a key held by a pending one-shot wins over the ID, which is then not checked.
  let target = customKey !== null ? await t.findPendingTriggerByKey(tx, projectId, customKey) : undefined;
  if (!target && call.triggerId !== null) {
    const byId = UUID.test(call.triggerId) ? await t.findTriggerById(tx, projectId, call.triggerId) : undefined;
    if (!byId) throw notFound("Trigger not found");
    if (byId.status !== "registered") throw gone("Job is no longer in registered state");
    target = byId;
  }

  // Rule 2: a one-shot takes the key from a recurring trigger holding it.
  // An instance named by its ID takes no key (docs/concepts.md: a key
  // belongs to a recurring trigger, never to its instances), so it takes
  // none away either: not even from its own recurring trigger.
  const instance = target !== undefined && target.generatorId !== null;
  let replaced = false;
  if (customKey !== null && !instance) {
    const generator = await t.findActiveGeneratorByKey(tx, projectId, customKey);
    if (generator) replaced = await t.cancelGenerator(tx, projectId, generator.id);
  }

  if (target) {
    const key = instance ? null : (customKey ?? (call.keepsKey === false ? null : target.customKey) ?? null);
    const after = await t.updateTriggerRequest(tx, projectId, target.id, { ...call.request, customKey: key, status, scheduledAt: when.at });
    // Locked when found, so it is still there; were it not, say so rather than fail.
    if (!after) throw gone("Job is no longer in registered state");
    return { triggerId: target.id, scheduledAt: after.scheduledAt, operation: "reschedule", kind: "job" };
  }
  const id = await t.insertTrigger(tx, {
    ...call.request,
    projectId,
    generatorId: null,
    customKey,
    status,
    scheduledAt: when.at,
  });
  return { triggerId: id, scheduledAt: when.at, operation: replaced ? "reschedule" : "schedule", kind: "job" };
}

async function scheduleRecurring(tx: SqlRunner, call: ScheduleCall, when: Cron): Promise<ScheduleResult> {
  const { projectId, customKey } = call;
  // Rule 3: with cron the ID is always checked.
  let generator = undefined as Awaited<ReturnType<typeof t.findGeneratorById>>;
  if (call.triggerId !== null) {
    generator = UUID.test(call.triggerId) ? await t.findGeneratorById(tx, projectId, call.triggerId) : undefined;
    if (!generator) throw notFound("Generator not found");
    if (generator.status !== "active") throw gone("Generator is no longer active");
  } else if (customKey !== null) {
    generator = await t.findActiveGeneratorByKey(tx, projectId, customKey);
  }

  // Rule 2: a recurring trigger takes the key from a pending one-shot holding
  // it; and (docs/concepts.md: one owner per key) from another recurring trigger when
  // this one, named by its ID, is given that key.
  let replaced = false;
  if (customKey !== null) {
    const oneShot = await t.findPendingTriggerByKey(tx, projectId, customKey);
    if (oneShot && oneShot.generatorId === null) replaced = await t.cancelTrigger(tx, projectId, oneShot.id);
    if (generator && generator.customKey !== customKey) {
      const holder = await t.findActiveGeneratorByKey(tx, projectId, customKey);
      if (holder && holder.id !== generator.id) replaced = (await t.cancelGenerator(tx, projectId, holder.id)) || replaced;
    }
  }

  const definition = { ...call.request, cronExpr: when.expr, tz: when.tz };
  let id: string;
  if (generator) {
    id = generator.id;
    await t.updateGenerator(tx, projectId, id, { ...definition, customKey: customKey ?? (call.keepsKey === false ? null : generator.customKey) });
    await t.cancelPendingInstance(tx, projectId, id);
  } else {
    id = await t.insertGenerator(tx, { ...definition, projectId, customKey });
  }

  // Rule 5: the first (or replacing) instance exists when the call returns.
  // A run cancelled on its own stays cancelled while the schedule stays the same.
  // Counted from now, with the recurring trigger locked (updated or made
  // above), not from the request: a call that waited for a lock across a run
  // would plan that run again after the scheduler had sent it.
  const at = nextRunAfterSkips(when.expr, when.tz, new Date(), skipsKept(generator, when.expr, when.tz));
  await t.insertTrigger(tx, {
    ...call.request,
    title: null,
    projectId,
    generatorId: id,
    customKey: null,
    status: "registered",
    scheduledAt: at,
  });
  return { triggerId: id, scheduledAt: at, operation: generator || replaced ? "reschedule" : "schedule", kind: "generator" };
}
