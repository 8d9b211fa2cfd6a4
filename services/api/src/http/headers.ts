// Reading the ttr- request headers of /schedule and /cancel.
import type { Request } from "express";

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

/** /schedule and /cancel read the key from `ttr-api-key` only; say so to a caller who sent Bearer. */
export function missingKeyReason(req: Request): string {
  return req.headers.authorization === undefined
    ? "ttr-api-key header is required"
    : "ttr-api-key header is required (this endpoint does not read the Authorization header)";
}
