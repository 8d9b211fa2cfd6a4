// The one place errors become responses.
import type { ErrorRequestHandler, RequestHandler, Response } from "express";
import { ApiError } from "@ttr/core";
import { isDatabaseUnavailable, isStatementTimeout, isUnstorableText } from "@ttr/db";
import type { Logger, OutageLog } from "@ttr/platform";
import type { ClosingError } from "./body.js";

/** The header that says, in one line, why an answer with no body was refused. */
export const REASON_HEADER = "ttr-error";

/**
 * Header values carry visible ASCII only: other characters (a request's own
 * bytes can end up in a reason) become `?`, and a reason stays short.
 */
export function headerSafe(reason: string): string {
  const line = reason.replace(/[^\x20-\x7e]/g, "?");
  return line.length > 300 ? `${line.slice(0, 297)}...` : line;
}

/** Answers with no body and the reason in the `ttr-error` header. */
function endWithReason(res: Response, status: number, reason: string): void {
  res.status(status);
  if (reason !== "") res.set(REASON_HEADER, headerSafe(reason));
  res.end();
}

/** Unknown paths and methods a path does not accept: 404 with no body (docs/api/errors.md). */
export const notFoundHandler: RequestHandler = (req, res) => {
  endWithReason(res, 404, `No endpoint ${req.method} ${req.path}`);
};

/**
 * A JSON error `{_tag, message}`. An answer to HEAD (a method /schedule
 * stores like any other) goes without its body: the message is in
 * ttr-error then, as for the answers that have no body.
 */
function sendError(res: Response, status: number, tag: string, message: string): void {
  res.status(status);
  if (res.req.method === "HEAD") res.set(REASON_HEADER, headerSafe(message));
  res.json({ _tag: tag, message });
}

/** The 503 of a storage outage, after which the client may try again. */
export function answerUnavailable(res: Response): void {
  sendError(res.set("Retry-After", "5"), 503, "Unavailable", "Storage unavailable, try again");
}

/**
 * `dbOutage`: PostgreSQL outages seen by requests, logged once when it goes
 * (and once when `ping` answers again), not once per failed request; each
 * request still has its own line, with its 503.
 */
export function errorHandler(log: Logger, dbOutage: OutageLog, ping: () => Promise<unknown>): ErrorRequestHandler {
  return (err, req, res, _next) => {
    if (res.headersSent) {
      // answered already (the storage watch's 503): nothing more to say;
      // cut short while sending: the client must not take it as whole
      if (!res.writableEnded) res.destroy();
      return;
    }
    if (err instanceof ApiError) {
      res.status(err.status);
      if (err.tag === "Unavailable") res.set("Retry-After", "5");
      // A body far over its limit is not read to its end: the connection goes.
      if ((err as ClosingError).closeConnection) res.set("Connection", "close");
      if (err.tag === "UnsupportedMediaType") {
        res.type("text/plain").send(err.message);
        return;
      }
      if (err.emptyBody) endWithReason(res, err.status, err.message);
      else sendError(res, err.status, err.tag, err.message);
      return;
    }
    if (isStatementTimeout(err)) {
      // A dashboard read outran DB_READ_TIMEOUT_MS: the server cancelled it.
      log.warn("read cancelled: statement timeout", { path: req.path, method: req.method });
      sendError(res.set("Retry-After", "5"), 503, "Unavailable", "The read took too long, try again");
      return;
    }
    if (isUnstorableText(err)) {
      // The last line of defence: the checks of each endpoint name the field.
      sendError(res, 400, "BadRequest", "Text holding a NUL character or an unpaired surrogate is not accepted");
      return;
    }
    if (isDatabaseUnavailable(err)) {
      // PostgreSQL is down or cut off: nothing was written, the client may retry.
      dbOutage.failedUntil(err, ping);
      answerUnavailable(res);
      return;
    }
    const status = typeof err?.status === "number" && err.status >= 400 && err.status < 500 ? err.status : 500;
    if (status === 413) {
      sendError(res, 413, "PayloadTooLarge", "Request body too large");
      return;
    }
    if (status === 400) {
      endWithReason(res, 400, "Malformed request");
      return;
    }
    log.error("unhandled error", { path: req.path, method: req.method, error: String(err?.stack ?? err) });
    sendError(res, 500, "InternalError", "Internal server error");
  };
}
