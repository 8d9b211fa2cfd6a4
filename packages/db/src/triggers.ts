// Writes of one-shot triggers, instances and recurring triggers for the
// public API. Each function runs one named statement; callers compose them
// inside a transaction.
import { execute, query, queryOne, type SqlRunner } from "./sql.js";
import type { GeneratorRef, ProjectRow, RequestFields, TriggerRef, TriggerStatus } from "./rows.js";

export async function findProjectByKeyHash(db: SqlRunner, keyHash: string): Promise<ProjectRow | undefined> {
  return queryOne<ProjectRow>(db, "find_project_by_key_hash", keyHash);
}

/**
 * Uses `units` quota units, all or none; answers, per unit in order, the
 * units left after it, or null for units that found none left (then the
 * units are taken one at a time, so exactly the ones that fit succeed).
 */
export async function consumeQuota(db: SqlRunner, projectId: string, month: string, units = 1): Promise<Array<number | null>> {
  const take = (n: number) => queryOne<{ used: number; quota: number }>(db, "consume_quota", projectId, month, n);
  const all = await take(units);
  if (all) {
    const left = Number(all.quota) - Number(all.used);
    return Array.from({ length: units }, (_, i) => left + units - 1 - i);
  }
  const out: Array<number | null> = [];
  for (let i = 0; i < units; i++) {
    // Once one unit found none left, the rest find none either.
    const one = units === 1 || out.at(-1) === null ? undefined : await take(1);
    out.push(one ? Number(one.quota) - Number(one.used) : null);
  }
  return out;
}

/** Gives back `units` taken by consumeQuota for calls that then stored nothing. */
export async function refundQuota(db: SqlRunner, projectId: string, month: string, units = 1): Promise<void> {
  await execute(db, "refund_quota", projectId, month, units);
}

export async function lockCustomKey(db: SqlRunner, projectId: string, customKey: string): Promise<void> {
  await query(db, "lock_custom_key", projectId, customKey);
}

/** lockCustomKey for many keys at once, in an order every caller keeps (at most 128 locks). */
export async function lockCustomKeys(db: SqlRunner, projectId: string, customKeys: string[]): Promise<void> {
  if (customKeys.length > 0) await query(db, "lock_custom_keys", projectId, customKeys);
}

export const findPendingTriggerByKey = (db: SqlRunner, projectId: string, key: string) =>
  queryOne<TriggerRef>(db, "find_pending_trigger_by_key", projectId, key);
/** With the day whose partition stores it, for the statements that name their rows by id and day. */
export const findTriggerById = (db: SqlRunner, projectId: string, id: string) =>
  queryOne<TriggerRef & { partDay: string }>(db, "find_trigger_by_id", projectId, id);
export const findLatestTriggerByKey = (db: SqlRunner, projectId: string, key: string) =>
  queryOne<TriggerRef>(db, "find_latest_trigger_by_key", projectId, key);
export const findGeneratorById = (db: SqlRunner, projectId: string, id: string) =>
  queryOne<GeneratorRef>(db, "find_generator_by_id", projectId, id);
export const findActiveGeneratorByKey = (db: SqlRunner, projectId: string, key: string) =>
  queryOne<GeneratorRef>(db, "find_active_generator_by_key", projectId, key);

function requestParams(r: RequestFields): unknown[] {
  return [r.title, r.url, r.method, JSON.stringify(r.headers), r.body, r.tags, r.source];
}

export async function insertTrigger(
  db: SqlRunner,
  t: RequestFields & { projectId: string; generatorId: string | null; customKey: string | null; status: TriggerStatus; scheduledAt: Date },
): Promise<string> {
  const [title, url, method, headers, body, tags, source] = requestParams(t);
  const row = await queryOne<{ id: string }>(
    db, "insert_trigger",
    t.projectId, t.generatorId, t.customKey, t.status, title, url, method, headers, body, tags, source, t.scheduledAt,
  );
  return row!.id;
}

/** A new one-shot with neither key nor generator, as /schedule creates it. */
export interface NewOneShot {
  id: string;
  projectId: string;
  status: TriggerStatus;
  scheduledAt: Date;
  request: RequestFields;
}

/** Inserts many new one-shots with one statement (and one commit). */
export async function insertOneShots(db: SqlRunner, rows: NewOneShot[]): Promise<void> {
  const column = <T>(f: (r: NewOneShot) => T) => rows.map(f);
  await execute(
    db, "insert_one_shots",
    column((r) => r.id), column((r) => r.projectId), column((r) => r.status),
    column((r) => r.request.title), column((r) => r.request.url), column((r) => r.request.method),
    column((r) => JSON.stringify(r.request.headers)), column((r) => r.request.body),
    column((r) => JSON.stringify(r.request.tags)), column((r) => r.scheduledAt),
  );
}

/** The ids among `ids` that name a stored trigger. */
export async function existingTriggerIds(db: SqlRunner, ids: string[]): Promise<Set<string>> {
  const rows = await query<{ id: string }>(db, "existing_trigger_ids", ids);
  return new Set(rows.map((r) => r.id));
}

/** Removes the one-shots among `ids` still waiting for their time; answers the ids removed. */
export async function forgetTriggers(db: SqlRunner, ids: string[]): Promise<Set<string>> {
  const rows = await query<{ id: string }>(db, "forget_trigger", ids);
  return new Set(rows.map((r) => r.id));
}

/** Returns the status and time the trigger has after the edit (a retrying one keeps both). */
export async function updateTriggerRequest(
  db: SqlRunner,
  projectId: string,
  id: string,
  t: RequestFields & { customKey: string | null; status: TriggerStatus; scheduledAt: Date },
): Promise<{ status: TriggerStatus; scheduledAt: Date } | undefined> {
  const [title, url, method, headers, body, tags, source] = requestParams(t);
  return queryOne(db, "update_trigger_request", id, t.customKey, t.status, title, url, method, headers, body, tags, source, t.scheduledAt, projectId);
}

export async function cancelTrigger(db: SqlRunner, projectId: string, id: string): Promise<boolean> {
  return (await query(db, "cancel_trigger", id, projectId)).length > 0;
}

export async function cancelGenerator(db: SqlRunner, projectId: string, id: string): Promise<boolean> {
  return (await query(db, "cancel_generator", id, projectId)).length > 0;
}

export async function cancelPendingInstance(db: SqlRunner, projectId: string, generatorId: string): Promise<void> {
  await execute(db, "cancel_pending_instance", generatorId, projectId);
}

export async function insertGenerator(
  db: SqlRunner,
  g: RequestFields & { projectId: string; customKey: string | null; cronExpr: string; tz: string },
): Promise<string> {
  const [title, url, method, headers, body, tags, source] = requestParams(g);
  const row = await queryOne<{ id: string }>(
    db, "insert_generator", g.projectId, g.customKey, title, g.cronExpr, g.tz, url, method, headers, body, tags, source,
  );
  return row!.id;
}

export async function updateGenerator(
  db: SqlRunner,
  projectId: string,
  id: string,
  g: RequestFields & { customKey: string | null; cronExpr: string; tz: string },
): Promise<void> {
  const [title, url, method, headers, body, tags, source] = requestParams(g);
  await execute(db, "update_generator", id, g.customKey, title, g.cronExpr, g.tz, url, method, headers, body, tags, source, projectId);
}
