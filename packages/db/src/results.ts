// What a project can read about its triggers and their attempts, and the two
// actions on a finished one (Replay now, Retry now), shaped as the dashboard
// endpoints answer them (docs/api/dashboard-api.md). The api's routes and
// the CLI's `trigger` and `dead-letters` commands both go through here, so
// they answer alike.
//
// Lists are newest first by (createdAt, id) with keyset pagination: the
// opaque cursor is the base64url of the last row's createdAt and id, so a
// page costs the same at any depth and rows created meanwhile neither shift
// nor repeat later pages.
import { badRequest, gone, notFound } from "@ttr/core";
import * as d from "./dashboard.js";
import type { ExecutionRow, Keyset, TriggerListFilter } from "./dashboard.js";
import type { GeneratorStatus, TriggerStatus } from "./rows.js";
import { executionJson, triggerJson } from "./json.js";
import type { SqlRunner } from "./sql.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isUuid = (value: string): boolean => UUID.test(value);

const notFoundTrigger = () => notFound("Trigger not found");

// ---- cursors ------------------------------------------------------------------

export function encodeCursor(k: Keyset): string {
  return Buffer.from(`${k.createdAt.toISOString()}|${k.id}`, "utf8").toString("base64url");
}

/** The keyset of a cursor; anything this module did not make is a 400 `Invalid cursor`. */
export function decodeCursor(raw: string): Keyset {
  const [at, id, extra] = Buffer.from(raw, "base64url").toString("utf8").split("|");
  const createdAt = new Date(at ?? "");
  // a four-digit year from 0001: what PostgreSQL's timestamps take (a forged -271821 is none)
  const readable = at !== undefined && /^(?!0000)\d{4}-/.test(at) && !Number.isNaN(createdAt.getTime()) && createdAt.toISOString() === at;
  if (extra !== undefined || id === undefined || !UUID.test(id) || !readable) {
    throw badRequest("Invalid cursor");
  }
  return { createdAt, id };
}

/** Rows were fetched with one extra to learn whether another page follows. */
function paginate<T extends { createdAt: Date; id: string }>(rows: T[], limit: number): { page: T[]; nextCursor: string | null } {
  if (rows.length <= limit) return { page: rows, nextCursor: null };
  const page = rows.slice(0, limit);
  return { page, nextCursor: encodeCursor(page[limit - 1]!) };
}

export type TriggerJson = ReturnType<typeof triggerJson>;
export type ExecutionJson = ReturnType<typeof executionJson>;

// ---- filters ------------------------------------------------------------------

const JOB_STATUSES: ReadonlySet<string> = new Set<TriggerStatus>(["registered", "skipped", "queued", "running", "retrying", "completed", "cancelled"]);
const GENERATOR_STATUSES: ReadonlySet<string> = new Set<GeneratorStatus>(["active", "cancelled"]);

/** The trigger list's parameters, read one at a time (a reader may refuse a value, in this order). */
export type TriggerListParam = (name: "kind" | "status" | "generatorId" | "tag" | "customKey") => string | null;

/**
 * Which kinds and statuses the trigger list shows; a status names its kind
 * (`active` only recurring triggers). `generatorId` lists one recurring
 * trigger's instances, which are jobs, so it switches recurring triggers
 * off. An unknown value is a 400 that names it.
 */
export function triggerListFilter(param: TriggerListParam): TriggerListFilter {
  const kind = param("kind");
  if (kind !== null && kind !== "job" && kind !== "generator") throw badRequest(`Invalid kind: ${kind} (job or generator)`);
  const status = param("status");
  if (status !== null && !JOB_STATUSES.has(status) && !GENERATOR_STATUSES.has(status)) throw badRequest(`Invalid status: ${status}`);
  const generatorId = param("generatorId");
  if (generatorId !== null && !UUID.test(generatorId)) throw badRequest(`Invalid generatorId: ${generatorId}`);
  return {
    jobs: kind !== "generator" && (status === null || JOB_STATUSES.has(status)) ? { status: status as TriggerStatus | null } : null,
    generators:
      kind !== "job" && generatorId === null && (status === null || GENERATOR_STATUSES.has(status))
        ? { status: status as GeneratorStatus | null }
        : null,
    tag: param("tag"),
    customKey: param("customKey"),
    generatorId,
  };
}

// ---- reads ------------------------------------------------------------------

/** A page of a project's triggers and recurring triggers, newest first. */
export async function triggerPage(db: SqlRunner, projectId: string, filter: TriggerListFilter, after: Keyset | null, limit: number) {
  const keys = await d.listTriggerKeys(db, projectId, filter, after, limit + 1);
  const { page, nextCursor } = paginate(keys, limit);
  const days = [...new Set(page.flatMap((k) => (k.partDay ? [k.partDay] : [])))];
  const rows = await d.loadTriggers(db, projectId, page.map((k) => k.id), days);
  return { triggers: rows.map(triggerJson), nextCursor };
}

/** One trigger with its executions by attempt number; a 404 when the project has no such trigger. */
export async function triggerWithExecutions(db: SqlRunner, projectId: string, written: string) {
  if (!UUID.test(written)) throw notFoundTrigger();
  // loadTriggers matches rows by their text form, which PostgreSQL writes in lowercase
  const id = written.toLowerCase();
  const [trigger] = await d.loadTriggers(db, projectId, [id]);
  if (!trigger) throw notFoundTrigger();
  const executions = trigger.kind === "job" ? await d.triggerExecutions(db, projectId, id) : [];
  return { trigger: triggerJson(trigger), executions: executions.map(executionJson) };
}

/** A page of a project's executions (or only its dead letters), newest first. */
export async function executionPage(
  db: SqlRunner,
  projectId: string,
  filter: { triggerId: string | null; deadLetterOnly: boolean },
  after: Keyset | null,
  limit: number,
) {
  const rows = await d.listExecutions(db, projectId, filter, after, limit + 1);
  const { page, nextCursor } = paginate(rows, limit);
  return { executions: page.map(executionJson), nextCursor };
}

// ---- Replay now and Retry now ------------------------------------------------------------------

/**
 * A completed one-shot or instance gets a new planned attempt; Retry now on a
 * retrying one makes its pending retry due at once. Anything else, recurring
 * triggers included, is a 410 naming the status found.
 */
export async function sendAgain(db: SqlRunner, projectId: string, id: string, action: "replay" | "retry"): Promise<ExecutionJson> {
  if (!UUID.test(id)) throw notFoundTrigger();
  const found = await d.findAnyTrigger(db, projectId, id);
  if (!found) throw notFoundTrigger();
  let execution: ExecutionRow | undefined;
  if (found.kind === "job" && found.status === "completed") execution = await d.replayCompleted(db, projectId, id, action);
  else if (found.kind === "job" && found.status === "retrying" && action === "retry") execution = await d.retryNow(db, projectId, id);
  if (!execution) {
    // Either the status never allowed it, or a concurrent click or the
    // scheduler changed it since it was read: report the status now.
    const current = (await d.findAnyTrigger(db, projectId, id)) ?? found;
    // Still completed: it was refused for being past the retention cutoff
    // (retention may be removing it; docs/retention.md).
    const why = current.kind === "job" && current.status === "completed" ? ", older than the retention" : "";
    throw gone(`Trigger cannot be ${action === "replay" ? "replayed" : "retried"} (status=${current.status}${why})`);
  }
  return executionJson(execution);
}
