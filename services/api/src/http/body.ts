// Reads a request body as raw bytes with a size limit. Express's own parsers
// would run before the route's header checks, so /schedule reads it itself
// (the check order in docs/api/schedule.md: missing headers come before the body).
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Request } from "express";
import { ApiError, payloadTooLarge } from "@ttr/core";

export const MiB = 1024 * 1024;

/**
 * A body over its limit is answered 413 at once. Up to this much more is
 * read and dropped, so that a client a little over the limit gets its 413
 * on a connection that stays usable; a body declared (or found) larger
 * than that is not read: the 413 closes the connection.
 */
const DRAIN_AT_MOST = MiB;

/** Marks a 413 whose connection is closed once it is sent (errors.ts). */
export interface ClosingError {
  closeConnection?: boolean;
}

function tooLarge(limitText: string, close: boolean) {
  const err: ReturnType<typeof payloadTooLarge> & ClosingError = payloadTooLarge(limitText);
  err.closeConnection = close;
  return err;
}

const BODY_FAILED = Symbol("ttr.bodyFailed");
const AWAITS_CONTINUE = Symbol("ttr.awaitsContinue");
type Marked = IncomingMessage & { [BODY_FAILED]?: true; [AWAITS_CONTINUE]?: ServerResponse };

/**
 * The client sent `Expect: 100-continue` and holds its body back until it
 * gets `100 Continue`. It gets one only once a route starts reading that
 * body (readBody), so an answer the headers alone decide (413 for a declared
 * length, 404, 415, a missing header) goes out without it; Node then closes
 * the connection, as the client may send the body anyway (server.ts calls this).
 */
export function awaitContinue(req: IncomingMessage, res: ServerResponse): void {
  (req as Marked)[AWAITS_CONTINUE] = res;
}

function sendContinue(req: IncomingMessage): void {
  const res = (req as Marked)[AWAITS_CONTINUE];
  if (res === undefined) return;
  delete (req as Marked)[AWAITS_CONTINUE];
  if (!res.headersSent) res.writeContinue();
}

/**
 * Node's parser found the body of this request malformed or cut short (the
 * headers were fine). The route still answers, after its own header checks:
 * a body read waiting now, or started later, fails with "Failed to read
 * request body" (server.ts calls this; the connection closes after the answer).
 */
export function failBody(req: IncomingMessage): void {
  (req as Marked)[BODY_FAILED] = true;
  req.emit("aborted");
}

export function bodyFailed(req: IncomingMessage): boolean {
  return (req as Marked)[BODY_FAILED] === true;
}

/**
 * A body cut short or malformed on the wire: 400 `Failed to read request
 * body`, with that message as JSON or, from the JSON endpoints, with an
 * empty body (json-endpoint.ts).
 */
export class UnreadableBody extends ApiError {
  constructor() {
    super("BadRequest", "Failed to read request body");
  }
}

export function readBody(req: Request, limit: number, limitText: string): Promise<Buffer> {
  if (bodyFailed(req)) return Promise.reject(new UnreadableBody());
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limit) {
    const close = declared > limit + DRAIN_AT_MOST;
    if (!close) req.resume();
    return Promise.reject(tooLarge(limitText, close));
  }
  sendContinue(req);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const fail = (err: Error) => {
      if (settled) return;
      settled = true;
      reject(err);
    };
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        // No length was declared (chunked): how much more will come is unknown.
        fail(tooLarge(limitText, true));
        return;
      }
      if (!settled) chunks.push(chunk);
    });
    req.on("end", () => {
      if (settled) return;
      settled = true;
      resolve(Buffer.concat(chunks, size));
    });
    req.on("aborted", () => fail(new UnreadableBody()));
    req.on("error", () => fail(new UnreadableBody()));
  });
}
