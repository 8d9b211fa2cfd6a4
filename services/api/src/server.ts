// The HTTP server around the express app. Node's parser answers malformed
// requests itself; this decides those answers (docs/api/README.md, docs/api/errors.md).
import http from "node:http";
import type { Duplex } from "node:stream";
import type express from "express";

/** Request headers above this size get 431 with an empty body (docs/api/README.md). */
export const MAX_HEADER_BYTES = 16 * 1024;

/** Parser errors that mean the headers were fine but the body was not. */
const BODY_ERRORS = new Set(["HPE_INVALID_EOF_STATE", "HPE_INVALID_CHUNK_SIZE", "HPE_INVALID_TRANSFER_ENCODING", "HPE_CHUNK_EXTENSIONS_OVERFLOW", "HPE_STRICT", "HPE_CLOSED_CONNECTION"]);

function reply(socket: Duplex, status: string, body = "", reason = ""): void {
  const head = [`HTTP/1.1 ${status}`, "Connection: close", `Content-Length: ${Buffer.byteLength(body)}`];
  if (body) head.push("Content-Type: application/json; charset=utf-8");
  // An answer with no body says why in ttr-error, as the app's own do.
  else if (reason) head.push(`ttr-error: ${reason}`);
  socket.end(`${head.join("\r\n")}\r\n\r\n${body}`);
}

export function createServer(app: express.Express): http.Server {
  const server = http.createServer({ maxHeaderSize: MAX_HEADER_BYTES, keepAliveTimeout: 65_000 }, app);
  server.on("clientError", (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (!socket.writable || err.code === "ECONNRESET") {
      socket.destroy();
      return;
    }
    if (err.code === "HPE_HEADER_OVERFLOW") reply(socket, "431 Request Header Fields Too Large", "", `Request headers larger than ${MAX_HEADER_BYTES / 1024} KiB`);
    else if (BODY_ERRORS.has(err.code ?? "")) {
      reply(socket, "400 Bad Request", JSON.stringify({ _tag: "BadRequest", message: "Failed to read request body" }));
    } else reply(socket, "400 Bad Request", "", "Malformed HTTP request");
  });
  return server;
}
