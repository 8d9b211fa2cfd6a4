// /schedule, any method (docs/api/schedule.md). The checks run in the order that
// page lists them; only the first failure is reported. This route reads the
// request's headers and body; schedule/call.ts runs the rest, shared with
// the dashboard's POST and PUT /triggers.
import type { Request, Response } from "express";
import { emptyBadRequest, forwardedHeaders, methodCarriesBody, parseTagsHeader } from "@ttr/core";
import type { Deps } from "../deps.js";
import { ApiKeys } from "../auth/api-key.js";
import { MiB, readBody } from "../http/body.js";
import { checkTtrHeadersOnce, header, missingKeyReason, textHeader } from "../http/headers.js";
import { ownBounds } from "../http/storage-watch.js";
import type { Scheduling } from "../schedule/call.js";

export function scheduleRoute(deps: Deps, scheduling: Scheduling) {
  const keys = new ApiKeys(deps.pg);
  return async (req: Request, res: Response): Promise<void> => {
    // bounded by the request pool, waiting out a restart on purpose (schedule/inserts.ts)
    ownBounds(res);
    const now = new Date();
    const apiKey = header(req, "ttr-api-key");
    const url = textHeader(req, "ttr-url");
    if (apiKey === undefined) throw emptyBadRequest(missingKeyReason(req));
    if (url === undefined) throw emptyBadRequest("ttr-url header is required");
    checkTtrHeadersOnce(req);

    const method = req.method.toUpperCase();
    const body = methodCarriesBody(method) ? await readBody(req, MiB, "1 MiB") : null;

    const answer = await scheduling.schedule(
      {
        url,
        method,
        headers: forwardedHeaders(req.rawHeaders),
        body: body && body.length > 0 ? body : null,
        tags: parseTagsHeader(textHeader(req, "ttr-tags")),
        title: textHeader(req, "ttr-title") ?? null,
        customKey: textHeader(req, "ttr-custom-key"),
        scheduledAt: textHeader(req, "ttr-scheduled-at"),
        triggerId: header(req, "ttr-trigger-id"),
        runMissed: header(req, "ttr-run-missed") === "true",
        keepsKey: true,
      },
      () => keys.project(apiKey),
      now,
    );
    res.status(200).json(answer);
  };
}
