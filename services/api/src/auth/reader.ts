// Who may read a project's results and act on them from the dashboard's
// endpoints (GET /triggers, /executions, /project, /stats, /overview, Replay
// now, Retry now, cancelling by ID): a signed-in dashboard session, or any API key of the project,
// sent as `ttr-api-key` or `Authorization: Bearer`. The key is checked first
// and alone when one is sent, as /declare does (docs/api/dashboard-api.md);
// the answers are the same whichever credential was used.
import type { NextFunction, Request, Response } from "express";
import type { Deps } from "../deps.js";
import { authenticate } from "../http/json-endpoint.js";

interface Reader {
  projectId: string;
}

/** Express middleware: 401 without a key or a live session, else `res.locals.reader`. */
export function requireReader(deps: Deps) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    res.locals.reader = (await authenticate(deps, req, { session: true })) satisfies Reader;
    // What follows shows stored requests, which may hold a target's
    // credentials: no browser or proxy keeps a copy (docs/api/dashboard-api.md).
    res.set({ "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff" });
    next();
  };
}

/** The project that requireReader found for this request. */
export function readerOf(res: Response): Reader {
  return res.locals.reader as Reader;
}
