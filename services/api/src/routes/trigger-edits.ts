// Creating, editing and cancelling a trigger from the dashboard
// (docs/api/dashboard-api.md): POST /triggers, PUT /triggers/<id> and
// DELETE /triggers/<id>, with a session or an API key like the dashboard's
// other endpoints.
//
// POST and PUT are /schedule with a JSON body: after the body's own format
// (415, then 400 with a message; schedule/json-ask.ts) the call runs through
// schedule/call.ts, the code /schedule runs, with the credentials checked at
// the place /schedule checks its key. PUT is /schedule with `ttr-trigger-id`.
// DELETE is /cancel by ID (@ttr/db cancelOne), answers included.
import type express from "express";
import type { Request, Response } from "express";
import { cancelOne } from "@ttr/db";
import { readerOf, requireReader } from "../auth/reader.js";
import type { Deps } from "../deps.js";
import { authenticate, checkJsonContentType, readJsonWithMessage } from "../http/json-endpoint.js";
import { apiRouter } from "../http/paths.js";
import { ownBounds } from "../http/storage-watch.js";
import type { Scheduling } from "../schedule/call.js";
import { askOfJson, REQUEST_LIMIT } from "../schedule/json-ask.js";

export function triggerEditRoutes(deps: Deps, scheduling: Scheduling): express.Router {
  const router = apiRouter();

  const scheduleRoute = (edit: boolean) => async (req: Request, res: Response) => {
    ownBounds(res); // as /schedule's
    const now = new Date();
    checkJsonContentType(req);
    const json = await readJsonWithMessage(req, REQUEST_LIMIT.bytes, REQUEST_LIMIT.text);
    const ask = askOfJson(json, edit ? String(req.params.id) : undefined);
    const projectOf = async () => ({ id: (await authenticate(deps, req, { session: true })).projectId });
    res.status(200).json(await scheduling.schedule(ask, projectOf, now));
  };

  router.post("/triggers", scheduleRoute(false));
  router.put("/triggers/:id", scheduleRoute(true));
  router.delete("/triggers/:id", requireReader(deps), async (req, res) => {
    ownBounds(res); // as /cancel's
    await cancelOne(deps.pg, readerOf(res).projectId, { triggerId: String(req.params.id) });
    res.status(204).end();
  });
  return router;
}
