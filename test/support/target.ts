// A real HTTP target on 127.0.0.1 that records every request it receives
// (arrival time, method, path, raw headers, body bytes) and answers as the
// test tells it to, per path.
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface Received {
  at: number;
  method: string;
  url: string;
  rawHeaders: string[];
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

export type Handler = (req: http.IncomingMessage, res: http.ServerResponse, body: Buffer) => void;

export interface Target {
  base: string;
  port: number;
  received: Received[];
  /** requests received for a path (without query) */
  hits(path: string): Received[];
  on(path: string, handler: Handler): void;
  waitFor(path: string, count: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

/** `host`: the loopback address to listen on (all of 127.0.0.0/8 reaches this machine). */
export async function startTarget(host = "127.0.0.1"): Promise<Target> {
  const received: Received[] = [];
  const handlers = new Map<string, Handler>();
  const waiters = new Set<() => void>();
  const server = http.createServer((req, res) => {
    const at = Date.now();
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      received.push({ at, method: req.method ?? "", url: req.url ?? "", rawHeaders: req.rawHeaders, headers: req.headers, body });
      for (const w of waiters) w();
      const path = (req.url ?? "/").split("?")[0]!;
      const handler = handlers.get(path);
      if (handler) handler(req, res, body);
      else res.writeHead(200, { "content-type": "text/plain" }).end("ok");
    });
  });
  await new Promise<void>((r) => server.listen(0, host, r));
  const port = (server.address() as AddressInfo).port;
  const hits = (path: string) => received.filter((r) => r.url.split("?")[0] === path);
  return {
    base: `http://${host}:${port}`,
    port,
    received,
    hits,
    on: (path, handler) => handlers.set(path, handler),
    waitFor(path, count, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const got = hits(path);
          if (got.length >= count) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(got);
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`target: ${hits(path).length}/${count} requests to ${path} after ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
