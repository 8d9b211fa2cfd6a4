// POST /declare (docs/api/declare-and-bulk.md), checks in the order that page
// gives: Content-Type (415), body shape (empty 400), credentials
// (401; an API key, a Bearer key or a dashboard session), then the items'
// values (400 with a message). Then one transaction applies the whole
// declaration. It neither uses nor checks the monthly quota.
import type { Request, Response } from "express";
import { summarize } from "@ttr/core";
import type { Deps } from "../deps.js";
import { applyDeclare, TRANSACTION_OPTIONS } from "../declare/apply.js";
import { checkItems, DECLARE_WORDS } from "../declare/items.js";
import { DECLARE_SHAPE } from "../declare/scan.js";
import { isDeclareBody } from "../declare/schema.js";
import { MiB } from "../http/body.js";
import { authenticate, built, checkJsonContentType, readScanned } from "../http/json-endpoint.js";
import { writeUnlessAnswered } from "../http/storage-watch.js";

export function declareRoute(deps: Deps) {
  return async (req: Request, res: Response): Promise<void> => {
    const now = new Date();
    checkJsonContentType(req);
    // Syntax and shape are checked on the bytes: the body is built only once
    // the key is known, so a large body with no key costs little (declare/scan.ts).
    const bytes = await readScanned(req, 10 * MiB, "10 MiB", DECLARE_SHAPE);
    const { projectId } = await authenticate(deps, req, { session: true });
    const body = built(isDeclareBody, bytes);
    const items = checkItems(body.items, { now, tag: body.tag, words: DECLARE_WORDS });

    const operations = await writeUnlessAnswered(
      deps.db,
      res,
      (tx) => applyDeclare(tx, { projectId, tag: body.tag, items, now, runMissed: body.runMissed ?? false }),
      TRANSACTION_OPTIONS,
    );
    res.status(200).json({
      tag: body.tag,
      summary: summarize(operations, ["unchanged", "added", "skipped", "updated", "cancelled"]),
      operations,
    });
  };
}
