// POST /bulk (docs/api/declare-and-bulk.md): the checks of /declare with
// the differences that page lists (`upserts`, `Upsert <key>`;
// no dashboard session, docs/api/README.md), then upserts and cancels in one
// all-or-nothing transaction. No quota is used or checked.
import type { Request, Response } from "express";
import { summarize } from "@ttr/core";
import type { Deps } from "../deps.js";
import { applyBulk, TRANSACTION_OPTIONS } from "../declare/apply.js";
import { BULK_WORDS, checkItems } from "../declare/items.js";
import { BULK_SHAPE } from "../declare/scan.js";
import { isBulkBody } from "../declare/schema.js";
import { MiB } from "../http/body.js";
import { authenticate, built, checkJsonContentType, readScanned } from "../http/json-endpoint.js";
import { writeUnlessAnswered } from "../http/storage-watch.js";

export function bulkRoute(deps: Deps) {
  return async (req: Request, res: Response): Promise<void> => {
    const now = new Date();
    checkJsonContentType(req);
    // Syntax and shape are checked on the bytes: the body is built only once
    // the key is known, so a large body with no key costs little (declare/scan.ts).
    const bytes = await readScanned(req, 10 * MiB, "10 MiB", BULK_SHAPE);
    const { projectId } = await authenticate(deps, req, { session: false });
    const body = built(isBulkBody, bytes);
    const upserts = checkItems(body.upserts ?? [], { now, tag: null, words: BULK_WORDS });

    const result = await writeUnlessAnswered(
      deps.db,
      res,
      (tx) => applyBulk(tx, { projectId, upserts, cancels: body.cancels ?? [], now, runMissed: body.runMissed ?? false }),
      TRANSACTION_OPTIONS,
    );
    const counts = summarize(result.upserts, ["added", "updated", "unchanged", "skipped"]);
    res.status(200).json({
      upserts: result.upserts,
      cancelled: result.cancelled,
      summary: { ...counts, cancelled: result.cancelled.length },
    });
  };
}
