// Reads a request body as raw bytes with a size limit. Express's own parsers
// would run before the route's header checks, so /schedule reads it itself
// (the check order in docs/api/schedule.md: missing headers come before the body).
import type { IncomingMessage } from "node:http";
import type { Request } from "express";
import { badRequest, payloadTooLarge } from "@ttr/core";

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
type Marked = IncomingMessage & { [BODY_FAILED]?: true };

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

const unreadable = () => badRequest("Failed to read request body");

export function readBody(req: Request, limit: number, limitText: string): Promise<Buffer> {
  if (bodyFailed(req)) return Promise.reject(unreadable());
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limit) {
    const close = declared > limit + DRAIN_AT_MOST;
    if (!close) req.resume();
    return Promise.reject(tooLarge(limitText, close));
  }
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
    req.on("aborted", () => fail(unreadable()));
    req.on("error", () => fail(unreadable()));
  });
}
