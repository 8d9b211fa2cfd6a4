// POST /dead-letters/replay and POST /dead-letters/discard
// (docs/api/dead-letters.md): many dead letters at once, chosen by tag and
// a range of completion times, with a dry run that only counts them. Like
// the dashboard's other endpoints they take a session or an API key
// (auth/reader.ts); their JSON body is read as /tag-policies reads its own:
// Content-Type (415), the body's format (400, empty body), credentials
// (401), then the values (400 with a message).
import type express from "express";
import type { Request, Response } from "express";
import Joi from "joi";
import { type DeadLetterAction, deadLetterSelection, deadLettersInBulk } from "@ttr/db";
import type { Deps } from "../deps.js";
import { MiB } from "../http/body.js";
import { notFoundHandler } from "../http/errors.js";
import { authenticate, checkJsonContentType, readJson, shaped } from "../http/json-endpoint.js";
import { apiRouter } from "../http/paths.js";
import { writeUnlessAnswered } from "../http/storage-watch.js";

interface BulkBody {
  tag?: string;
  from?: string;
  to?: string;
  dryRun?: boolean;
}

/** Every field optional; `{}` selects every dead letter. Unknown fields are ignored, as on /tag-policies. */
const bulkBody: Joi.ObjectSchema<BulkBody> = Joi.object<BulkBody>({
  tag: Joi.string().allow(""),
  from: Joi.string().allow(""),
  to: Joi.string().allow(""),
  dryRun: Joi.boolean(),
})
  .unknown(true)
  .required();

function bulkRoute(deps: Deps, action: DeadLetterAction) {
  return async (req: Request, res: Response): Promise<void> => {
    checkJsonContentType(req);
    const body = shaped(bulkBody, await readJson(req, MiB, "1 MiB"));
    const { projectId } = await authenticate(deps, req, { session: true });
    const selection = deadLetterSelection(body);
    res.status(200).json(await writeUnlessAnswered(deps.db, res, (tx) => deadLettersInBulk(tx, projectId, action, selection, body.dryRun === true)));
  };
}

export function deadLetterRoutes(deps: Deps): express.Router {
  const router = apiRouter();
  router.route("/dead-letters/replay").post(bulkRoute(deps, "replay")).all(notFoundHandler);
  router.route("/dead-letters/discard").post(bulkRoute(deps, "discard")).all(notFoundHandler);
  return router;
}
