// DELETE /cancel (docs/api/cancel.md, checks in the order that page lists).
import type { Request, Response } from "express";
import { badRequest, emptyBadRequest } from "@ttr/core";
import { cancelOne } from "@ttr/db";
import type { Deps } from "../deps.js";
import { projectForKey } from "../auth/api-key.js";
import { checkTtrHeadersOnce, header, missingKeyReason, textHeader } from "../http/headers.js";
import { ownBounds } from "../http/storage-watch.js";

/** An empty value counts as not sent. */
function nonEmpty(value: string | undefined): string | undefined {
  return value === "" ? undefined : value;
}

export function cancelRoute(deps: Deps) {
  return async (req: Request, res: Response): Promise<void> => {
    ownBounds(res); // one statement on the request pool, bounded there
    if (req.headers["ttr-api-key"] === undefined) throw emptyBadRequest(missingKeyReason(req));
    checkTtrHeadersOnce(req);
    const triggerId = nonEmpty(header(req, "ttr-trigger-id"));
    const customKey = nonEmpty(textHeader(req, "ttr-custom-key"));
    if (triggerId === undefined && customKey === undefined) {
      throw badRequest("Must provide either ttr-trigger-id or ttr-custom-key header");
    }
    if (triggerId !== undefined && customKey !== undefined) {
      throw badRequest("Provide either ttr-trigger-id or ttr-custom-key, not both");
    }
    const project = await projectForKey(deps.pg, String(req.headers["ttr-api-key"]));
    await cancelOne(deps.pg, project.id, triggerId !== undefined ? { triggerId } : { customKey: customKey! });
    res.status(204).end();
  };
}
