// The dashboard's data endpoints (docs/api/dashboard-api.md): trigger and execution lists,
// one trigger with its executions, Replay now / Retry now, project usage,
// per-minute outcome counts and the overview (lateness, queue, held backlog
// per tag, runs due in the next hour). Every route needs a live session or
// an API key (auth/reader.ts) and sees only that project.
//
// The reads and their JSON shapes live in @ttr/db (results.ts, overview.ts), shared with
// the CLI; this file reads the query parameters. `limit` above 500 is a 400 rather than silently
// clamped, like every other out-of-range value. Query parameters left empty
// (`?status=`) mean no filter; an unknown value, or a parameter given twice,
// is a 400. `generatorId=` narrows GET /triggers to one recurring trigger's
// instances (the dashboard's recurring-trigger page). Creating, editing and
// cancelling a trigger are in trigger-edits.ts.
import type express from "express";
import type { Request, Response } from "express";
import { badRequest, unauthorized } from "@ttr/core";
import * as d from "@ttr/db";
import type { Keyset } from "@ttr/db";
import type { Deps } from "../deps.js";
import { readerOf, requireReader } from "../auth/reader.js";
import { apiRouter } from "../http/paths.js";
import { writeUnlessAnswered } from "../http/storage-watch.js";

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 500;
const DEFAULT_MINUTES = 60;
const MAX_MINUTES = 1440;

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

const cursorParam = (req: Request): Keyset | null => {
  const raw = param(req, "cursor");
  return raw === null ? null : d.decodeCursor(raw);
};

// ---- routes -----------------------------------------------------------------

function sendAgainRoute(deps: Deps, action: "replay" | "retry") {
  return async (req: Request, res: Response): Promise<void> => {
    const execution = await writeUnlessAnswered(deps.db, res, (tx) => d.sendAgain(tx, readerOf(res).projectId, String(req.params.id), action));
    res.status(202).json({ execution });
  };
}

export function dashboardRoutes(deps: Deps): express.Router {
  const router = apiRouter();
  const auth = requireReader(deps);

  router.get("/triggers", auth, async (req, res) => {
    const filter = d.triggerListFilter((name) => param(req, name));
    const limit = intParam(req, "limit", DEFAULT_LIMIT, MAX_LIMIT);
    res.json(await d.triggerPage(deps.reads, readerOf(res).projectId, filter, cursorParam(req), limit));
  });

  router.get("/triggers/:id", auth, async (req, res) => {
    res.json(await d.triggerWithExecutions(deps.reads, readerOf(res).projectId, String(req.params.id)));
  });

  router.post("/triggers/:id/replay", auth, sendAgainRoute(deps, "replay"));
  router.post("/triggers/:id/retry", auth, sendAgainRoute(deps, "retry"));

  router.get("/executions", auth, async (req, res) => {
    const { projectId } = readerOf(res);
    const triggerId = param(req, "triggerId");
    if (triggerId !== null && !d.isUuid(triggerId)) throw badRequest(`Invalid triggerId: ${triggerId}`);
    // Only the exact lowercase `true` filters; any other value lists everything (docs/concepts.md, dead letters).
    const deadLetterOnly = req.query.deadLetterOnly === "true";
    const limit = intParam(req, "limit", DEFAULT_LIMIT, MAX_LIMIT);
    res.json(await d.executionPage(deps.reads, projectId, { triggerId, deadLetterOnly }, cursorParam(req), limit));
  });

  router.get("/project", auth, async (_req, res) => {
    const { projectId } = readerOf(res);
    // The quota's month is the calendar month in UTC (docs/quota.md).
    const project = await d.projectUsage(deps.reads, projectId, new Date().toISOString().slice(0, 7));
    // Deleting a project deletes its users and sessions, so only a race gets here without one.
    if (!project) throw unauthorized();
    res.json({ project });
  });

  router.get("/stats", auth, async (req, res) => {
    const { projectId } = readerOf(res);
    const minutes = intParam(req, "minutes", DEFAULT_MINUTES, MAX_MINUTES);
    const buckets = await d.executionStats(deps.reads, projectId, new Date(), minutes);
    res.json({ buckets: buckets.map((b) => ({ ...b, minute: b.minute.toISOString() })) });
  });

  router.get("/overview", auth, async (req, res) => {
    const { projectId } = readerOf(res);
    const minutes = intParam(req, "minutes", DEFAULT_MINUTES, MAX_MINUTES);
    res.json(await d.projectOverview(deps.reads, projectId, new Date(), minutes));
  });

  return router;
}
