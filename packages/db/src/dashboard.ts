// Reads and writes of the dashboard's session API (docs/api/dashboard-api.md): sign-in,
// sessions, the trigger and execution lists, Replay now / Retry now, usage
// and per-minute outcome counts. Each function runs one named statement.
import type { GeneratorStatus, TriggerStatus } from "./rows.js";
import { execute, query, queryOne, type SqlRunner } from "./sql.js";

export interface UserLogin {
  id: string;
  email: string;
  passwordHash: string;
  projectId: string;
  projectName: string;
}

export interface SessionIdentity {
  sessionId: string;
  userId: string;
  projectId: string;
}

/** How long a session lives, in seconds: idle and absolute lifetimes, and how often its idle expiry moves. */
export interface SessionLifetimes {
  idleSeconds: number;
  absoluteSeconds: number;
  touchEverySeconds: number;
}

export type TriggerKind = "job" | "generator";

/** A trigger or recurring trigger as stored, in the dashboard's shape (dates and bytes not yet rendered). */
export interface DashboardTriggerRow {
  kind: TriggerKind;
  id: string;
  status: string;
  customKey: string | null;
  title: string | null;
  url: string;
  method: string;
  /** ordered [name, value] pairs */
  headers: Array<[string, string]>;
  body: Uint8Array | null;
  tags: string[];
  scheduledAt: Date | null;
  cronExpr: string | null;
  tz: string | null;
  generatorId: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface ExecutionRow {
  id: string;
  triggerId: string;
  attemptNumber: number;
  triggeredBy: string;
  status: string;
  plannedAt: Date;
  startedAt: Date | null;
  completedAt: Date | null;
  responseStatus: number | null;
  responseHeaders: Record<string, string> | null;
  responseBody: string | null;
  responseSize: number | null;
  errorMessage: string | null;
  isDeadLetter: boolean;
  /** a dead letter's notification (docs/delivery-extras.md); read only by the trigger's page */
  notifyStatus?: string | null;
  notifyAttempts?: number | null;
  notifyError?: string | null;
  /** when a dead letter was discarded in bulk (docs/api/dead-letters.md) */
  discardedAt?: Date | null;
  /** the keyset of the execution list */
  createdAt: Date;
}

/** Where a page starts: strictly after this (createdAt, id) in newest-first order. */
export interface Keyset {
  createdAt: Date;
  id: string;
}

/** Which rows the trigger list shows. A kind set to null is not listed; a status of null means any. */
export interface TriggerListFilter {
  jobs: { status: TriggerStatus | null } | null;
  generators: { status: GeneratorStatus | null } | null;
  tag: string | null;
  customKey: string | null;
  /** only the instances of this recurring trigger (set `generators` to null with it) */
  generatorId: string | null;
}

export interface StatsBucket {
  minute: Date;
  success: number;
  httpFailure: number;
  networkFailure: number;
  deadLetters: number;
}

export const findUserByEmail = (db: SqlRunner, email: string) => queryOne<UserLogin>(db, "session_find_user_by_email", email);

/** Stores `newHash` in place of `checkedHash` (session_rehash_password.sql); false if the hash changed meanwhile. */
export const rehashPassword = async (db: SqlRunner, userId: string, checkedHash: string, newHash: string) =>
  (await execute(db, "session_rehash_password", userId, checkedHash, newHash)) === 1;

export async function createSession(db: SqlRunner, userId: string, tokenHash: string, life: SessionLifetimes): Promise<void> {
  await query(db, "session_create", userId, tokenHash, life.idleSeconds);
}

/** The live session of a token hash, its idle expiry slid forward (at most once per `touchEverySeconds`). */
export const authenticateSession = (db: SqlRunner, tokenHash: string, life: SessionLifetimes) =>
  queryOne<SessionIdentity>(db, "session_authenticate", tokenHash, life.idleSeconds, life.absoluteSeconds, life.touchEverySeconds);

export async function deleteSession(db: SqlRunner, tokenHash: string): Promise<void> {
  await execute(db, "session_delete", tokenHash);
}

type TriggerKey = { kind: TriggerKind; id: string; createdAt: Date; partDay: string | null };

/**
 * One page of the trigger list as `{kind, id, createdAt}`, newest first;
 * load the rows with loadTriggers. With `generatorId`, one recurring
 * trigger's instances (jobs only) from a statement of their own.
 */
export async function listTriggerKeys(db: SqlRunner, projectId: string, f: TriggerListFilter, after: Keyset | null, rows: number): Promise<TriggerKey[]> {
  const cursor = [after?.createdAt ?? null, after?.id ?? null] as const;
  if (f.generatorId !== null) {
    if (f.jobs === null) return [];
    return query<TriggerKey>(db, "session_list_instances", projectId, f.generatorId, f.jobs.status, f.tag, f.customKey, ...cursor, rows);
  }
  return query<TriggerKey>(
    db, "session_list_triggers",
    projectId, f.jobs !== null, f.jobs?.status ?? null, f.generators !== null, f.generators?.status ?? null,
    f.tag, f.customKey, ...cursor, rows,
  );
}

/**
 * Rows of a project's triggers and recurring triggers by ID, in the order of
 * `ids`; unknown IDs are left out. `days`: the day partitions of the
 * one-shots among them, when known (listTriggerKeys gives them).
 */
export async function loadTriggers(db: SqlRunner, projectId: string, ids: string[], days: string[] | null = null): Promise<DashboardTriggerRow[]> {
  if (ids.length === 0) return [];
  const rows = await query<DashboardTriggerRow>(db, "session_load_triggers", projectId, ids, days);
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

export const triggerExecutions = (db: SqlRunner, projectId: string, triggerId: string) =>
  query<ExecutionRow>(db, "session_trigger_executions", projectId, triggerId);

export const listExecutions = (
  db: SqlRunner,
  projectId: string,
  f: { triggerId: string | null; deadLetterOnly: boolean },
  after: Keyset | null,
  rows: number,
) =>
  query<ExecutionRow>(db, "session_list_executions", projectId, f.triggerId, f.deadLetterOnly, after?.createdAt ?? null, after?.id ?? null, rows);

/** Kind and status of a project's trigger or recurring trigger, or undefined. */
export const findAnyTrigger = (db: SqlRunner, projectId: string, id: string) =>
  queryOne<{ kind: TriggerKind; status: string }>(db, "session_find_any_trigger", projectId, id);

/** completed → queued with a new planned attempt; undefined when the trigger was not completed. */
export const replayCompleted = (db: SqlRunner, projectId: string, id: string, triggeredBy: "replay" | "retry") =>
  queryOne<ExecutionRow>(db, "session_replay", projectId, id, triggeredBy);

/** A retrying trigger's planned retry made due now; undefined when there is none. */
export const retryNow = (db: SqlRunner, projectId: string, id: string) => queryOne<ExecutionRow>(db, "session_retry_now", projectId, id);

export const projectUsage = (db: SqlRunner, projectId: string, month: string) =>
  queryOne<{ id: string; name: string; monthlyQuota: number; usedThisMonth: number }>(db, "session_project", projectId, month);

/** Per-minute outcome counts for the `minutes` whole minutes that end with the one containing `now`, oldest first. */
export function executionStats(db: SqlRunner, projectId: string, now: Date, minutes: number): Promise<StatsBucket[]> {
  const first = new Date((Math.floor(now.getTime() / 60_000) - (minutes - 1)) * 60_000);
  return query<StatsBucket>(db, "session_stats", projectId, first, minutes);
}
