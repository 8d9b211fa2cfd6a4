// A real HTTP target on 127.0.0.1 for the attempt tests: records every request
// as it arrived on the wire (raw header lines, body bytes) and answers by path.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";

export interface Received {
  method: string;
  /** Path and query as sent. */
  url: string;
  /** Header lines as name/value pairs, in wire order and case. */
  headers: Array<[string, string]>;
  body: Buffer;
}

export interface Target {
  /** `http://<host>:<port>`, 127.0.0.1 unless told */
  base: string;
  port: number;
  received: Received[];
  /** Requests received for a path (query ignored). */
  count(path: string): number;
  close(): Promise<void>;
}

type Route = (req: http.IncomingMessage, res: http.ServerResponse) => void;

const MB = 1024 * 1024;

const routes: Record<string, Route> = {
  "/redirect": (_req, res) => {
    res.writeHead(302, { Location: "/redirected" }).end("moved");
  },
  "/close-before-headers": (req) => {
    req.socket.destroy();
  },
  "/hang": () => {
    // Never answers; the client's timeout has to end the attempt.
  },
  "/headers": (_req, res) => {
    res.setHeader("X-Multi", ["a", "b"]);
    res.setHeader("Set-Cookie", ["a=1", "b=2"]);
    res.setHeader("X-CamelCase", "Value Kept");
    res.end("h");
  },
  "/empty": (_req, res) => {
    res.writeHead(200, { "Content-Length": "0" }).end();
  },
  "/slow-body": (_req, res) => {
    res.writeHead(200, { "Content-Type": "text/plain" });
    res.flushHeaders();
    let sent = 0;
    const tick = setInterval(() => {
      res.write(`part${sent}.`);
      if (++sent === 5) {
        clearInterval(tick);
        res.end();
      }
    }, 350);
  },
  "/trickle": (req, res) => {
    res.writeHead(200, { "Content-Type": "text/plain" });
    res.flushHeaders();
    const tick = setInterval(() => res.write("."), 100);
    req.socket.on("close", () => clearInterval(tick));
  },
  "/broken-body": (req, res) => {
    res.writeHead(200, { "Content-Length": "100" });
    res.write("partial");
    setTimeout(() => req.socket.destroy(), 50);
  },
  "/multibyte": (_req, res) => {
    // 10,239 ASCII bytes, then "€" (E2 82 AC) straddling the 10,240-byte limit.
    res.end(`${"a".repeat(10_239)}€tail`);
  },
  "/invalid-utf8": (_req, res) => {
    res.end(Buffer.from([0x68, 0xff, 0x69]));
  },
  "/big": (_req, res) => {
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    let left = 12 * MB;
    const pump = () => {
      while (left > 0) {
        left -= chunk.length;
        if (!res.write(chunk)) return void res.once("drain", pump);
      }
      res.end();
    };
    pump();
  },
  "/gzip": (_req, res) => {
    res.writeHead(200, { "Content-Encoding": "gzip" }).end(gzipSync("hello ".repeat(200)));
  },
  "/zero-after-limit": (_req, res) => {
    res.end(Buffer.concat([Buffer.alloc(10_240, 0x61), Buffer.from([0x00, 0x62])]));
  },
};

function statusRoute(path: string): Route | undefined {
  const match = /^\/status\/(\d{3})$/.exec(path);
  if (!match) return undefined;
  const code = Number(match[1]);
  return (_req, res) => {
    res.writeHead(code, { "Content-Type": "text/plain" }).end(`status ${code}`);
  };
}

/** `host`: the loopback address to listen on (127.0.0.0/8 all reaches this machine). */
export async function startTarget(host = "127.0.0.1"): Promise<Target> {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    res.on("error", () => {});
    const path = (req.url ?? "/").split("?")[0]!;
    const route = routes[path] ?? statusRoute(path);
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const headers: Array<[string, string]> = [];
      for (let i = 0; i < req.rawHeaders.length; i += 2) headers.push([req.rawHeaders[i]!, req.rawHeaders[i + 1]!]);
      received.push({ method: req.method ?? "", url: req.url ?? "", headers, body: Buffer.concat(chunks) });
      if (route) route(req, res);
      else res.writeHead(200, { "Content-Type": "text/plain" }).end("ok");
    });
  });
  // Clients drop connections mid-body on purpose (10 MB cap, zero byte).
  server.on("connection", (socket) => socket.on("error", () => {}));
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://${host}:${port}`,
    port,
    received,
    count: (path) => received.filter((r) => r.url.split("?")[0] === path).length,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A port nothing listens on: bound once, then released. */
export async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
