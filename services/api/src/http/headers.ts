// Reading the ttr- request headers of /schedule and /cancel.
import type { Request } from "express";
import { badRequest } from "@ttr/core";

/** A header's value; repeated headers are joined with ", " as HTTP allows. */
export function header(req: Request, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(", ") : value;
}

/**
 * Node reads header bytes as Latin-1; clients that send UTF-8 text (a title
 * with accents, a key in another script) mean UTF-8, so read it as such when
 * the bytes are valid UTF-8. /schedule and /cancel read keys alike, so a key
 * stored by one is found by the other.
 */
export function textHeader(req: Request, name: string): string | undefined {
  const value = header(req, name);
  if (value === undefined || !/[\u0080-\u00ff]/.test(value)) return value;
  const utf8 = Buffer.from(value, "latin1").toString("utf8");
  return utf8.includes("\uFFFD") ? value : utf8;
}

/**
 * The first `ttr-` header sent more than once, in lowercase. Node joins
 * repeated lines with `, `, which would turn two URLs, keys or titles into
 * one value nobody sent; `ttr-tags` is a list, so its lines add up.
 */
export function repeatedTtrHeader(req: Request): string | undefined {
  const seen = new Set<string>();
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (!name.startsWith("ttr-") || name === "ttr-tags") continue;
    if (seen.has(name)) return name;
    seen.add(name);
  }
  return undefined;
}

/** A 400 naming a `ttr-` header sent more than once (see repeatedTtrHeader). */
export function checkTtrHeadersOnce(req: Request): void {
  const repeated = repeatedTtrHeader(req);
  if (repeated !== undefined) throw badRequest(`Header ${repeated} must be sent once`);
}

/** /schedule and /cancel read the key from `ttr-api-key` only; say so to a caller who sent Bearer. */
export function missingKeyReason(req: Request): string {
  return req.headers.authorization === undefined
    ? "ttr-api-key header is required"
    : "ttr-api-key header is required (this endpoint does not read the Authorization header)";
}
