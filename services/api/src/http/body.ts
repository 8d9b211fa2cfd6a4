// Reads a request body as raw bytes with a size limit. Express's own parsers
// would run before the route's header checks, so /schedule reads it itself
// (SPEC §7 /schedule checks: missing headers come before the body).
import type { Request } from "express";
import { badRequest, payloadTooLarge } from "@ttr/core";

export const MiB = 1024 * 1024;

export function readBody(req: Request, limit: number, limitText: string): Promise<Buffer> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    return Promise.reject(payloadTooLarge(limitText));
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
        fail(payloadTooLarge(limitText));
        req.resume();
        return;
      }
      if (!settled) chunks.push(chunk);
    });
    req.on("end", () => {
      if (settled) return;
      settled = true;
      resolve(Buffer.concat(chunks, size));
    });
    req.on("aborted", () => fail(badRequest("Failed to read request body")));
    req.on("error", () => fail(badRequest("Failed to read request body")));
  });
}
