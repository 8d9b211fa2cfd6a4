// Requests refused on their header section alone, before any route runs
// (docs/api/errors.md): each answer has an empty body, its reason in
// ttr-error, and closes the connection.
import type http from "node:http";
import { HEADERS_TOO_LARGE, headersTooLarge } from "./header-section.js";

export interface Refusal {
  status: number;
  reason: string;
  /** what the request's log line names as refused */
  refused: string;
}

/**
 * What the request's Expect header asks, as Node sorts it: nothing, a
 * `100 Continue` (its checkContinue event) or anything else (checkExpectation).
 */
export type Expectation = "none" | "continue" | "other";

/** The values of every line of a header, in order; Node keeps only the first Host of several. */
function lines(req: http.IncomingMessage, name: string): string[] {
  const out: string[] = [];
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) if (raw[i]!.toLowerCase() === name) out.push(raw[i + 1]!);
  return out;
}

/**
 * The transfer codings of the body, lowercased, in order. Node's parser
 * frames a body whose last coding is chunked and hands it on still encoded
 * by any coding before that (`gzip, chunked`): stored as it came, it would
 * reach the target as bytes nobody meant, so only plain `chunked` is read.
 */
function transferCodings(req: http.IncomingMessage): string[] {
  return lines(req, "transfer-encoding")
    .flatMap((line) => line.split(","))
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== "");
}

/** The refusal of a request whose header section alone decides the answer, or undefined to let it through. */
export function refusalOf(req: http.IncomingMessage, expectation: Expectation): Refusal | undefined {
  if (headersTooLarge(req)) return { status: 431, reason: HEADERS_TOO_LARGE, refused: "HPE_HEADER_OVERFLOW" };
  // Node's own check of Host is off (server.ts): its 400 said nothing of why.
  const hosts = lines(req, "host");
  if (hosts.length > 1) return { status: 400, reason: "Host header must be sent once", refused: "HOST_REPEATED" };
  const beforeHttp11 = req.httpVersionMajor < 1 || (req.httpVersionMajor === 1 && req.httpVersionMinor === 0);
  if (hosts.length === 0 && !beforeHttp11) return { status: 400, reason: "Host header is required", refused: "HOST_MISSING" };
  const codings = transferCodings(req);
  if (codings.length > 0 && codings.join(",") !== "chunked") {
    return { status: 501, reason: `Transfer-Encoding ${codings.join(", ")} is not supported: send the body with chunked alone or with Content-Length`, refused: "TRANSFER_CODING" };
  }
  if (expectation === "other") {
    return { status: 417, reason: `Expect: ${req.headers.expect} is not supported: only 100-continue is`, refused: "EXPECTATION" };
  }
  return undefined;
}
