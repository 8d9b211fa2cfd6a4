// The HTTP server around the express app. Node's parser answers malformed
// requests itself; this decides those answers (docs/api/README.md, docs/api/errors.md).
import http from "node:http";
import type { Duplex } from "node:stream";
import type { Logger, prom } from "@ttr/platform";
import type express from "express";
import { awaitContinue, failBody } from "./http/body.js";
import { headerSafe, REASON_HEADER } from "./http/errors.js";
import { HEADERS_TOO_LARGE, headersTooLarge, MAX_HEADER_BYTES, MAX_HEADER_LINES } from "./http/header-section.js";
import { type Expectation, refusalOf } from "./http/refusals.js";

/** How long a client may take to send its request line and headers. */
export const HEADERS_TIMEOUT_MS = 20_000;

/**
 * Parser errors that mean the headers were fine but the body was not.
 * (Transfer-Encoding with Content-Length, or not ending in chunked, is
 * found once the headers are in, before any request exists: malformed.)
 */
const BODY_ERRORS = new Set(["HPE_INVALID_EOF_STATE", "HPE_INVALID_CHUNK_SIZE", "HPE_CHUNK_EXTENSIONS_OVERFLOW", "HPE_STRICT"]);

const FAILED_TO_READ = "Failed to read request body";

/** What is written to a connection whose parser failed, when no route answers for it. */
interface ParserAnswer {
  status: string;
  /** a JSON body, or "" for none */
  body: string;
  /** ttr-error, on an answer with no body */
  reason: string;
}

function parserAnswer(code: string | undefined): ParserAnswer {
  if (code === "HPE_HEADER_OVERFLOW") return { status: "431 Request Header Fields Too Large", body: "", reason: HEADERS_TOO_LARGE };
  if (code === "ERR_HTTP_REQUEST_TIMEOUT") return { status: "408 Request Timeout", body: "", reason: "Request headers not received in time" };
  if (BODY_ERRORS.has(code ?? "")) return { status: "400 Bad Request", body: JSON.stringify({ _tag: "BadRequest", message: FAILED_TO_READ }), reason: "" };
  return { status: "400 Bad Request", body: "", reason: "Malformed HTTP request" };
}

/** Writes an answer straight to the connection and ends it: only when no response of Node's is in flight on it. */
function reply(socket: Duplex, { status, body, reason }: ParserAnswer): void {
  const head = [`HTTP/1.1 ${status}`, "Connection: close", `Content-Length: ${Buffer.byteLength(body)}`];
  if (body) head.push("Content-Type: application/json; charset=utf-8");
  // An answer with no body says why in ttr-error, as the app's own do.
  else if (reason) head.push(`${REASON_HEADER}: ${reason}`);
  socket.end(`${head.join("\r\n")}\r\n\r\n${body}`);
}

/**
 * How long a request whose body failed may take to answer before the server
 * answers for it: a safety net for a route that never looks at the failure,
 * far beyond the time any route takes (each bounds its own storage calls).
 */
export const ROUTE_ANSWERS_WITHIN_MS = 60_000;

/**
 * The endpoints that answer a body they cannot read with an empty 400, as
 * any other body they cannot take (http/json-endpoint.ts); the others say
 * `Failed to read request body` in JSON.
 */
const EMPTY_400_PATHS = /^\/(?:declare|bulk|tag-policies(?:\/[^/?]*)?|dead-letters\/(?:replay|discard))(?:\?|$)/;

type Exchange = { req: http.IncomingMessage; res: http.ServerResponse };

/**
 * The parser failed while the body of a request whose headers arrived was
 * coming in (a bad chunk size or line end, a bad or oversized trailer, the
 * connection's end): its route answers, so that checks on headers come first
 * (docs/api/schedule.md: missing headers, then the body) and a route that
 * reads no body answers as usual. Returns false when that request is
 * complete: the error then belongs to what follows it on the connection.
 */
function letRouteAnswer(socket: Duplex, last: Exchange | undefined, withinMs: number): boolean {
  if (!last || last.req.complete) return false;
  const { req, res } = last;
  if (res.headersSent) {
    // Answered without reading its body (a missing header, say): nothing
    // more to say on this connection once that answer is out.
    if (res.writableFinished) socket.end();
    else res.once("finish", () => socket.end());
    return true;
  }
  // Node reads no further request from a connection whose parser failed.
  res.shouldKeepAlive = false;
  failBody(req);
  const fallback = setTimeout(() => {
    if (res.headersSent) return;
    // Through the response, so it goes after any answer before it on the
    // connection; it closes the connection once sent.
    const body = EMPTY_400_PATHS.test(req.url ?? "") ? "" : JSON.stringify({ _tag: "BadRequest", message: FAILED_TO_READ });
    const kind = body ? { "Content-Type": "application/json; charset=utf-8" } : { [REASON_HEADER]: FAILED_TO_READ };
    res.writeHead(400, { "Content-Length": Buffer.byteLength(body), ...kind }).end(body);
  }, withinMs);
  fallback.unref();
  res.once("close", () => clearTimeout(fallback));
  return true;
}

export interface ServerOptions {
  /** HEADERS_TIMEOUT_MS unless given */
  headersTimeoutMs?: number;
  /** ROUTE_ANSWERS_WITHIN_MS unless given */
  routeAnswersWithinMs?: number;
}

/**
 * `log`: requests refused before express sees them (431, a malformed
 * request) still get their one line, with no path to show.
 */
export function createServer(app: express.Express, log?: Logger, opts: ServerOptions = {}): http.Server {
  // maxHeaderSize: Node stops reading a section whose target, names and
  // values pass 16 KiB (HPE_HEADER_OVERFLOW below); the rest of the framing
  // is counted once the section is in (http/header-section.ts).
  // headersTimeout: a client that takes longer to send its request line and
  // headers (a slow-loris one, or one that sends nothing) gets 408 and the
  // connection closes, checked every 5 s rather than Node's 60 s and 30 s.
  // A body may take Node's requestTimeout (300 s): 10 MiB on a slow link.
  // requireHostHeader: Node's own 400 for a missing Host has no ttr-error;
  // http/refusals.ts answers it instead.
  // Refused before express: one log line each, and counted with the app's
  // requests (route `unmatched`), as the app would have.
  const requests = app.locals.requests as prom.Counter<"route" | "status"> | undefined;
  const refused = (status: number, code: string | undefined) => {
    requests?.inc({ route: "unmatched", status: String(status) });
    log?.info("request", { status, refused: code });
  };
  const server = http.createServer({
    maxHeaderSize: MAX_HEADER_BYTES,
    keepAliveTimeout: 65_000,
    headersTimeout: opts.headersTimeoutMs ?? HEADERS_TIMEOUT_MS,
    connectionsCheckingInterval: Math.min(5_000, opts.headersTimeoutMs ?? HEADERS_TIMEOUT_MS),
    requireHostHeader: false,
  });
  server.maxHeadersCount = MAX_HEADER_LINES;
  const lastRequest = new WeakMap<Duplex, Exchange>();
  const failed = new WeakSet<Duplex>();
  const closing = new WeakSet<Duplex>();
  // Node hands a request with an Expect header to checkContinue (100-continue)
  // or checkExpectation (anything else) instead of "request".
  const serve = (req: http.IncomingMessage, res: http.ServerResponse, expectation: Expectation) => {
    lastRequest.set(req.socket, { req, res });
    // Requests sent on behind a refused one, already read from the same
    // bytes, get no answer (the connection closes): no route runs for them
    // either, as none would after the parser's own refusal.
    if (closing.has(req.socket)) return;
    const refusal = refusalOf(req, expectation);
    if (refusal === undefined) {
      if (expectation === "continue") awaitContinue(req, res);
      app(req, res);
      return;
    }
    // Answered as the parser's own refusals are, before any route; the
    // connection closes once the answer is out, so a body the request
    // declared is never read as a request of its own.
    closing.add(req.socket);
    res.shouldKeepAlive = false;
    res.writeHead(refusal.status, { "Content-Length": 0, [REASON_HEADER]: headerSafe(refusal.reason) }).end();
    refused(refusal.status, refusal.refused);
  };
  server.on("request", (req: http.IncomingMessage, res: http.ServerResponse) => serve(req, res, "none"));
  server.on("checkContinue", (req: http.IncomingMessage, res: http.ServerResponse) => serve(req, res, "continue"));
  server.on("checkExpectation", (req: http.IncomingMessage, res: http.ServerResponse) => serve(req, res, "other"));
  // Node hands CONNECT over as a tunnel, not to the app: answer it rather
  // than drop the connection (docs/api/schedule.md, methods).
  server.on("connect", (req: http.IncomingMessage, socket: Duplex) => {
    // no longer the server's connection: closed here once the answer is out
    socket.once("finish", () => socket.destroy());
    if (headersTooLarge(req)) {
      reply(socket, { status: "431 Request Header Fields Too Large", body: "", reason: HEADERS_TOO_LARGE });
      refused(431, "HPE_HEADER_OVERFLOW");
    } else {
      reply(socket, { status: "400 Bad Request", body: "", reason: "CONNECT cannot be read as a request to store; use POST /triggers with method CONNECT" });
      refused(400, "CONNECT");
    }
  });
  server.on("clientError", (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (!socket.writable || err.code === "ECONNRESET") {
      socket.destroy();
      return;
    }
    // A failed parser reports again on every later read: the first report decided.
    if (failed.has(socket)) return;
    failed.add(socket);
    // A refusal already on its way closes the connection: nothing more to say.
    if (closing.has(socket)) return;
    const last = lastRequest.get(socket);
    if (letRouteAnswer(socket, last, opts.routeAnswersWithinMs ?? ROUTE_ANSWERS_WITHIN_MS)) return;
    const pending = last && !last.res.writableFinished ? last.res : undefined;
    if (err.code === "HPE_CLOSED_CONNECTION") {
      // Bytes after a request that asked for `Connection: close`: its
      // answer closes the connection as asked, and nothing follows it.
      if (!pending) socket.end();
      return;
    }
    const answer = parserAnswer(err.code);
    // logged and counted only when it goes out
    const send = () => {
      refused(Number(answer.status.slice(0, 3)), err.code);
      reply(socket, answer);
    };
    if (!pending) {
      send();
      return;
    }
    // The answer to a complete request before the bytes that failed is not
    // all out yet (its route may still be at work): answers go in request
    // order, so the refusal waits for it. Responses on a connection go out
    // one after another, so the last request's answer is the last to finish.
    // An answer that closes the connection leaves nothing more to say.
    pending.once("finish", () => {
      if (socket.writable) send();
    });
  });
  return server;
}
