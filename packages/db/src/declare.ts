// The set-based statements of POST /declare and POST /bulk: a declaration
// is read in two statements and written in at most seven, whatever its size
// (rows travel as one JSON array or as unnest arrays, never one per item).
// Callers run them inside one transaction.
import type { GeneratorWrite, JobCancel, JobWrite, StoredGenerator, StoredJob } from "@ttr/core";
import { query, type SqlRunner } from "./sql.js";

/** Serializes /declare and /bulk calls of one project until the transaction ends. */
export async function lockProjectDeclarations(db: SqlRunner, projectId: string): Promise<void> {
  await query(db, "declare_lock_project", projectId);
}

type Loaded<T> = Omit<T, "headers"> & { headers: unknown };

// jsonb arrives parsed or as text depending on the driver path
const pairs = (headers: unknown): Array<[string, string]> =>
  (typeof headers === "string" ? JSON.parse(headers) : headers) as Array<[string, string]>;

async function loadJobs(db: SqlRunner, name: string, ...values: unknown[]): Promise<StoredJob[]> {
  const rows = await query<Loaded<StoredJob>>(db, name, ...values);
  return rows.map((r) => ({ ...r, headers: pairs(r.headers) }));
}

async function loadGenerators(db: SqlRunner, name: string, ...values: unknown[]): Promise<StoredGenerator[]> {
  const rows = await query<Loaded<StoredGenerator>>(db, name, ...values);
  return rows.map((r) => ({ ...r, headers: pairs(r.headers) }));
}

/** The tag's pending and queued one-shots and the waiting instances of its recurring triggers, locked. */
export const declareCandidateJobs = (db: SqlRunner, projectId: string, tag: string) =>
  loadJobs(db, "declare_candidate_triggers", projectId, tag);
/** The tag's active recurring triggers, locked. */
export const declareCandidateGenerators = (db: SqlRunner, projectId: string, tag: string) =>
  loadGenerators(db, "declare_candidate_generators", projectId, tag);
/** Pending one-shots holding any of the keys, anywhere in the project, locked. */
export const pendingJobsByKey = (db: SqlRunner, projectId: string, keys: string[]) =>
  keys.length === 0 ? Promise.resolve([]) : loadJobs(db, "bulk_pending_triggers_by_key", projectId, keys);
/** Active recurring triggers holding any of the keys, anywhere in the project, locked. */
export const activeGeneratorsByKey = (db: SqlRunner, projectId: string, keys: string[]) =>
  keys.length === 0 ? Promise.resolve([]) : loadGenerators(db, "bulk_active_generators_by_key", projectId, keys);

const ids = (rows: Array<{ id: string }>) => rows.map((r) => r.id);
const base64 = (body: Uint8Array | null) => (body === null ? null : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString("base64"));

/** Cancels one-shots and instances (queued ones only where `queued`); returns the ids cancelled. */
export async function cancelJobRows(db: SqlRunner, projectId: string, rows: JobCancel[]): Promise<string[]> {
  if (rows.length === 0) return [];
  const columns = [rows.map((r) => r.id), rows.map((r) => r.queued), rows.map((r) => r.partDay)];
  return ids(await query(db, "declare_cancel_triggers", projectId, ...columns));
}

/** Cancels recurring triggers and their upcoming instance, and with `waitingInstances` their other unfinished ones. */
export async function cancelGeneratorRows(db: SqlRunner, projectId: string, generatorIds: string[], waitingInstances: boolean): Promise<string[]> {
  if (generatorIds.length === 0) return [];
  return ids(await query(db, "declare_cancel_generators", projectId, generatorIds, waitingInstances));
}

/** Cancels the registered instance of each recurring trigger, before a new one is created. */
export async function cancelUpcomingInstances(db: SqlRunner, projectId: string, generatorIds: string[]): Promise<string[]> {
  if (generatorIds.length === 0) return [];
  return ids(await query(db, "declare_cancel_upcoming_instances", projectId, generatorIds));
}

function jobJson(rows: Array<JobWrite & { partDay?: string }>): string {
  return JSON.stringify(
    rows.map((r) => ({
      id: r.id,
      partDay: r.partDay ?? null,
      customKey: r.customKey,
      status: r.status,
      scheduledAt: r.scheduledAt.toISOString(),
      title: r.title,
      url: r.url,
      method: r.method,
      headers: r.headers,
      body: base64(r.body),
      tags: r.tags,
    })),
  );
}

function generatorJson(rows: GeneratorWrite[]): string {
  return JSON.stringify(
    rows.map((r) => ({
      id: r.id,
      customKey: r.customKey,
      cronExpr: r.cronExpr,
      tz: r.tz,
      title: r.title,
      url: r.url,
      method: r.method,
      headers: r.headers,
      body: base64(r.body),
      tags: r.tags,
    })),
  );
}

/** Runs one of the set-based write statements over all its rows; nothing to write, no round trip. */
async function writeRows(db: SqlRunner, statement: string, projectId: string, rows: unknown[], json: string, ...more: unknown[]): Promise<string[]> {
  if (rows.length === 0) return [];
  return ids(await query(db, statement, projectId, json, ...more));
}

/** Edits stored one-shots in place, each found by id and day. */
export const updateJobRows = (db: SqlRunner, projectId: string, rows: Array<JobWrite & { partDay: string }>) =>
  writeRows(db, "declare_update_triggers", projectId, rows, jobJson(rows), [...new Set(rows.map((r) => r.partDay))]);
export const insertJobRows = (db: SqlRunner, projectId: string, rows: JobWrite[]) =>
  writeRows(db, "declare_insert_triggers", projectId, rows, jobJson(rows));
export const updateGeneratorRows = (db: SqlRunner, projectId: string, rows: GeneratorWrite[]) =>
  writeRows(db, "declare_update_generators", projectId, rows, generatorJson(rows));
export const insertGeneratorRows = (db: SqlRunner, projectId: string, rows: GeneratorWrite[]) =>
  writeRows(db, "declare_insert_generators", projectId, rows, generatorJson(rows));

/** A `cancels` entry of /bulk as bulk_resolve_cancels reads it. */
export interface CancelTarget {
  n: number;
  by: "id" | "key" | "tag" | "string";
  value: string;
}

export interface CancelMatch {
  n: number;
  via: "id" | "key" | "tag";
  kind: "job" | "generator";
  id: string;
  customKey: string | null;
  status: string;
  createdAt: Date;
  /** a one-shot's or instance's day; null for a recurring trigger */
  partDay: string | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Everything each target could name; see bulk_resolve_cancels.sql. */
export async function resolveCancelTargets(db: SqlRunner, projectId: string, targets: CancelTarget[]): Promise<CancelMatch[]> {
  if (targets.length === 0) return [];
  const rows = targets.map((t) => ({ n: t.n, by: t.by, uuid: UUID.test(t.value) ? t.value : null, value: t.value }));
  return query<CancelMatch>(db, "bulk_resolve_cancels", projectId, JSON.stringify(rows));
}
