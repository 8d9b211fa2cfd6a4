// The dashboard's data endpoints (CONTRACT §5): trigger and execution lists,
// one trigger with its executions, Replay now / Retry now, project usage and
// per-minute outcome counts. Every route needs a live session and sees only
// that session's project.
//
// Lists are newest first by (createdAt, id) with keyset pagination: the
// opaque cursor is the base64url of the last row's createdAt and id, so a
// page costs the same at any depth and rows created meanwhile neither shift
// nor repeat later pages. `limit` above 500 is a 400 rather than silently
// clamped, like every other out-of-range value. Query parameters left empty
// (`?status=`) mean no filter; an unknown value, or a parameter given twice,
// is a 400. `generatorId=` narrows GET /triggers to one recurring trigger's
// instances (the dashboard's recurring-trigger page).
import type express from "express";
import type { Request, Response } from "express";
import { badRequest, gone, notFound, unauthorized } from "@ttr/core";
import * as d from "@ttr/db";
import { executionJson, triggerJson } from "@ttr/db";
import type { ExecutionRow, GeneratorStatus, Keyset, TriggerStatus } from "@ttr/db";
import type { Deps } from "../deps.js";
import { requireSession, sessionOf } from "../auth/session.js";
import { apiRouter } from "../http/paths.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const JOB_STATUSES: ReadonlySet<string> = new Set<TriggerStatus>(["registered", "skipped", "queued", "running", "retrying", "completed", "cancelled"]);
const GENERATOR_STATUSES: ReadonlySet<string> = new Set<GeneratorStatus>(["active", "cancelled"]);

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 500;
const DEFAULT_MINUTES = 60;
const MAX_MINUTES = 1440;

const notFoundTrigger = () => notFound("Trigger not found");

// ---- query parameters -------------------------------------------------------

/** A query parameter given at most once; empty counts as absent. */
function param(req: Request, name: string): string | null {
  const value = req.query[name];
  if (value === undefined || value === "") return null;
  if (typeof value !== "string") throw badRequest(`Query parameter ${name} must be given once`);
  return value;
}

function intParam(req: Request, name: string, fallback: number, max: number): number {
  const raw = param(req, name);
  if (raw === null) return fallback;
  const n = /^\d{1,9}$/.test(raw) ? Number(raw) : 0;
  if (n < 1 || n > max) throw badRequest(`Invalid ${name}: ${raw} (an integer from 1 to ${max})`);
  return n;
}

export function encodeCursor(k: Keyset): string {
  return Buffer.from(`${k.createdAt.toISOString()}|${k.id}`, "utf8").toString("base64url");
}

export function decodeCursor(raw: string): Keyset {
  const [at, id, extra] = Buffer.from(raw, "base64url").toString("utf8").split("|");
  const createdAt = new Date(at ?? "");
  if (extra !== undefined || id === undefined || !UUID.test(id) || Number.isNaN(createdAt.getTime()) || createdAt.toISOString() !== at) {
    throw badRequest("Invalid cursor");
  }
  return { createdAt, id };
}

const cursorParam = (req: Request): Keyset | null => {
  const raw = param(req, "cursor");
  return raw === null ? null : decodeCursor(raw);
};

/** Rows were fetched with one extra to learn whether another page follows. */
function paginate<T extends { createdAt: Date; id: string }>(rows: T[], limit: number): { page: T[]; nextCursor: string | null } {
  if (rows.length <= limit) return { page: rows, nextCursor: null };
  const page = rows.slice(0, limit);
  return { page, nextCursor: encodeCursor(page[limit - 1]!) };
}

// ---- JSON shapes (Trigger, Execution): in @ttr/db, shared with
// the dead-letter notifications the executor sends

export { executionJson, triggerJson };

// ---- routes -----------------------------------------------------------------

/**
 * Which kinds and statuses GET /triggers lists; a status names its kind
 * (`active` only generators). `generatorId` lists one recurring trigger's
 * instances, which are jobs, so it switches generators off.
 */
function triggerFilter(req: Request): d.TriggerListFilter {
  const kind = param(req, "kind");
  if (kind !== null && kind !== "job" && kind !== "generator") throw badRequest(`Invalid kind: ${kind} (job or generator)`);
  const status = param(req, "status");
  if (status !== null && !JOB_STATUSES.has(status) && !GENERATOR_STATUSES.has(status)) throw badRequest(`Invalid status: ${status}`);
  const generatorId = param(req, "generatorId");
  if (generatorId !== null && !UUID.test(generatorId)) throw badRequest(`Invalid generatorId: ${generatorId}`);
  return {
    jobs: kind !== "generator" && (status === null || JOB_STATUSES.has(status)) ? { status: status as TriggerStatus | null } : null,
    generators:
      kind !== "job" && generatorId === null && (status === null || GENERATOR_STATUSES.has(status))
        ? { status: status as GeneratorStatus | null }
        : null,
    tag: param(req, "tag"),
    customKey: param(req, "customKey"),
    generatorId,
  };
}

/**
 * Replay now and Retry now (CONTRACT §5, SPEC §3). A completed one-shot or
 * instance gets a new planned attempt; Retry now on a retrying one makes its
 * pending retry due at once. Anything else, recurring triggers included, is
 * 410 with the status found.
 */
function sendAgain(deps: Deps, action: "replay" | "retry") {
  const verb = action === "replay" ? "replayed" : "retried";
  return async (req: Request, res: Response): Promise<void> => {
    const { projectId } = sessionOf(res);
    const id = String(req.params.id);
    if (!UUID.test(id)) throw notFoundTrigger();
    const found = await d.findAnyTrigger(deps.db, projectId, id);
    if (!found) throw notFoundTrigger();
    let execution: ExecutionRow | undefined;
    if (found.kind === "job" && found.status === "completed") execution = await d.replayCompleted(deps.db, projectId, id, action);
    else if (found.kind === "job" && found.status === "retrying" && action === "retry") execution = await d.retryNow(deps.db, projectId, id);
    if (!execution) {
      // Either the status never allowed it, or a concurrent click or the
      // scheduler changed it since it was read: report the status now.
      const current = (await d.findAnyTrigger(deps.db, projectId, id)) ?? found;
      throw gone(`Trigger cannot be ${verb} (status=${current.status})`);
    }
    res.status(202).json({ execution: executionJson(execution) });
  };
}

export function dashboardRoutes(deps: Deps): express.Router {
  const router = apiRouter();
  const auth = requireSession(deps);

  router.get("/triggers", auth, async (req, res) => {
    const { projectId } = sessionOf(res);
    const filter = triggerFilter(req);
    const limit = intParam(req, "limit", DEFAULT_LIMIT, MAX_LIMIT);
    const after = cursorParam(req);
    const keys = await d.listTriggerKeys(deps.reads, projectId, filter, after, limit + 1);
    const { page, nextCursor } = paginate(keys, limit);
    const days = [...new Set(page.flatMap((k) => (k.partDay ? [k.partDay] : [])))];
    const rows = await d.loadTriggers(deps.reads, projectId, page.map((k) => k.id), days);
    res.json({ triggers: rows.map(triggerJson), nextCursor });
  });

  router.get("/triggers/:id", auth, async (req, res) => {
    const { projectId } = sessionOf(res);
    const id = String(req.params.id);
    if (!UUID.test(id)) throw notFoundTrigger();
    const [trigger] = await d.loadTriggers(deps.reads, projectId, [id]);
    if (!trigger) throw notFoundTrigger();
    const executions = trigger.kind === "job" ? await d.triggerExecutions(deps.reads, projectId, id) : [];
    res.json({ trigger: triggerJson(trigger), executions: executions.map(executionJson) });
  });

  router.post("/triggers/:id/replay", auth, sendAgain(deps, "replay"));
  router.post("/triggers/:id/retry", auth, sendAgain(deps, "retry"));

  router.get("/executions", auth, async (req, res) => {
    const { projectId } = sessionOf(res);
    const triggerId = param(req, "triggerId");
    if (triggerId !== null && !UUID.test(triggerId)) throw badRequest(`Invalid triggerId: ${triggerId}`);
    // Only the exact lowercase `true` filters; any other value lists everything (SPEC §1 Dead letters 7).
    const deadLetterOnly = req.query.deadLetterOnly === "true";
    const limit = intParam(req, "limit", DEFAULT_LIMIT, MAX_LIMIT);
    const after = cursorParam(req);
    const rows = await d.listExecutions(deps.reads, projectId, { triggerId, deadLetterOnly }, after, limit + 1);
    const { page, nextCursor } = paginate(rows, limit);
    res.json({ executions: page.map(executionJson), nextCursor });
  });

  router.get("/project", auth, async (_req, res) => {
    const { projectId } = sessionOf(res);
    // The quota's month is the calendar month in UTC (CONTRACT §4).
    const project = await d.projectUsage(deps.reads, projectId, new Date().toISOString().slice(0, 7));
    // Deleting a project deletes its users and sessions, so only a race gets here without one.
    if (!project) throw unauthorized();
    res.json({ project });
  });

  router.get("/stats", auth, async (req, res) => {
    const { projectId } = sessionOf(res);
    const minutes = intParam(req, "minutes", DEFAULT_MINUTES, MAX_MINUTES);
    const buckets = await d.executionStats(deps.reads, projectId, new Date(), minutes);
    res.json({ buckets: buckets.map((b) => ({ ...b, minute: b.minute.toISOString() })) });
  });

  return router;
}
