// The HTTP server around the express app. Node's parser answers malformed
// requests itself; this decides those answers (docs/api/README.md, docs/api/errors.md).
import http from "node:http";
import type { Duplex } from "node:stream";
import type { Logger } from "@ttr/platform";
import type express from "express";
import { failBody } from "./http/body.js";
import { headersTooLarge, MAX_HEADER_BYTES, MAX_HEADER_LINES } from "./http/header-section.js";

const HEADERS_TOO_LARGE = `Request headers larger than ${MAX_HEADER_BYTES / 1024} KiB`;
/** How long a client may take to send its request line and headers. */
export const HEADERS_TIMEOUT_MS = 20_000;

/** Parser errors that mean the headers were fine but the body was not. */
const BODY_ERRORS = new Set(["HPE_INVALID_EOF_STATE", "HPE_INVALID_CHUNK_SIZE", "HPE_INVALID_TRANSFER_ENCODING", "HPE_CHUNK_EXTENSIONS_OVERFLOW", "HPE_STRICT", "HPE_CLOSED_CONNECTION"]);

function reply(socket: Duplex, status: string, body = "", reason = ""): void {
  const head = [`HTTP/1.1 ${status}`, "Connection: close", `Content-Length: ${Buffer.byteLength(body)}`];
  if (body) head.push("Content-Type: application/json; charset=utf-8");
  // An answer with no body says why in ttr-error, as the app's own do.
  else if (reason) head.push(`ttr-error: ${reason}`);
  socket.end(`${head.join("\r\n")}\r\n\r\n${body}`);
}

/**
 * How long a request whose body failed may take to answer before the server
 * answers for it: a safety net for a route that never looks at the failure,
 * far beyond the time any route takes (each bounds its own storage calls).
 */
const ROUTE_ANSWERS_WITHIN_MS = 60_000;

/**
 * The parser failed while the body of a request whose headers arrived was
 * coming in (a bad chunk size or line end, a bad or oversized trailer, the
 * connection's end): its route answers, so that checks on headers come first
 * (docs/api/schedule.md: missing headers, then the body) and a route that
 * reads no body answers as usual. Returns false when that request is
 * complete: the error then belongs to what follows it on the connection.
 */
function letRouteAnswer(socket: Duplex, last: { req: http.IncomingMessage; res: http.ServerResponse } | undefined): boolean {
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
    // An answer on its way (or waiting behind an earlier one on the
    // connection) closes the connection itself once sent.
    if (res.headersSent) return;
    reply(socket, "400 Bad Request", JSON.stringify({ _tag: "BadRequest", message: "Failed to read request body" }));
    socket.destroy();
  }, ROUTE_ANSWERS_WITHIN_MS);
  fallback.unref();
  res.once("close", () => clearTimeout(fallback));
  return true;
}

/**
 * `log`: requests refused before express sees them (431, a malformed
 * request) still get their one line, with no path to show.
 */
export function createServer(app: express.Express, log?: Logger, opts: { headersTimeoutMs?: number } = {}): http.Server {
  // maxHeaderSize: Node stops reading a section whose target, names and
  // values pass 16 KiB (HPE_HEADER_OVERFLOW below); the rest of the framing
  // is counted once the section is in (http/header-section.ts).
  // headersTimeout: a client that takes longer to send its request line and
  // headers (a slow-loris one, or one that sends nothing) gets 408 and the
  // connection closes, checked every 5 s rather than Node's 60 s and 30 s.
  // A body may take Node's requestTimeout (300 s): 10 MiB on a slow link.
  const server = http.createServer({
    maxHeaderSize: MAX_HEADER_BYTES,
    keepAliveTimeout: 65_000,
    headersTimeout: opts.headersTimeoutMs ?? HEADERS_TIMEOUT_MS,
    connectionsCheckingInterval: Math.min(5_000, opts.headersTimeoutMs ?? HEADERS_TIMEOUT_MS),
  });
  server.maxHeadersCount = MAX_HEADER_LINES;
  const lastRequest = new WeakMap<Duplex, { req: http.IncomingMessage; res: http.ServerResponse }>();
  const failed = new WeakSet<Duplex>();
  const closing = new WeakSet<Duplex>();
  server.on("request", (req: http.IncomingMessage, res: http.ServerResponse) => {
    lastRequest.set(req.socket, { req, res });
    // Requests sent on behind a refused one, already read from the same
    // bytes, get no answer (the connection closes): no route runs for them
    // either, as none would after the parser's own refusal.
    if (closing.has(req.socket)) return;
    if (!headersTooLarge(req)) {
      app(req, res);
      return;
    }
    // Answered as the parser's own 431 is, before any route; the connection
    // closes once the answer is out.
    closing.add(req.socket);
    res.shouldKeepAlive = false;
    res.writeHead(431, { "Content-Length": 0, "ttr-error": HEADERS_TOO_LARGE }).end();
    log?.info("request", { status: 431, refused: "HPE_HEADER_OVERFLOW" });
  });
  // A request with an Expect header is handed here before it is answered
  // 100 Continue, or 417 for any other expectation: too large, it gets its
  // 431 instead, and a client waiting to send its body never does.
  server.on("checkContinue", (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (!headersTooLarge(req)) res.writeContinue();
    server.emit("request", req, res);
  });
  server.on("checkExpectation", (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (headersTooLarge(req)) server.emit("request", req, res);
    else res.writeHead(417).end();
  });
  // Node hands CONNECT over as a tunnel, not to the app: answer it rather
  // than drop the connection (docs/api/schedule.md, methods).
  server.on("connect", (req: http.IncomingMessage, socket: Duplex) => {
    // no longer the server's connection: closed here once the answer is out
    socket.once("finish", () => socket.destroy());
    if (headersTooLarge(req)) {
      reply(socket, "431 Request Header Fields Too Large", "", HEADERS_TOO_LARGE);
      log?.info("request", { status: 431, refused: "HPE_HEADER_OVERFLOW" });
    } else reply(socket, "400 Bad Request", "", "CONNECT cannot be read as a request to store; use POST /triggers with method CONNECT");
  });
  server.on("clientError", (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (!socket.writable || err.code === "ECONNRESET") {
      socket.destroy();
      return;
    }
    // A failed parser reports again on every later read: the first report decided.
    if (failed.has(socket)) return;
    failed.add(socket);
    if (letRouteAnswer(socket, lastRequest.get(socket))) return;
    if (err.code === "HPE_HEADER_OVERFLOW") reply(socket, "431 Request Header Fields Too Large", "", HEADERS_TOO_LARGE);
    else if (err.code === "ERR_HTTP_REQUEST_TIMEOUT") reply(socket, "408 Request Timeout", "", "Request headers not received in time");
    else if (BODY_ERRORS.has(err.code ?? "")) {
      reply(socket, "400 Bad Request", JSON.stringify({ _tag: "BadRequest", message: "Failed to read request body" }));
    } else reply(socket, "400 Bad Request", "", "Malformed HTTP request");
    log?.info("request", { status: err.code === "HPE_HEADER_OVERFLOW" ? 431 : err.code === "ERR_HTTP_REQUEST_TIMEOUT" ? 408 : 400, refused: err.code });
  });
  return server;
}
