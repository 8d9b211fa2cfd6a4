// The 16 KiB limit on a request's header section (docs/api/errors.md, 431),
// on the server around a stand-in app: what counts, the exact boundary, and
// that a refused request reaches no route and logs its one line. And the
// time a client may take to send its headers.
import type { AddressInfo } from "node:net";
import net from "node:net";
import { createServer } from "@ttr/api/server";
import type { Logger } from "@ttr/platform";
import express from "express";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";

const LIMIT = 16 * 1024;
const logged: unknown[] = [];
let routed = 0;
let port = 0;
let server: ReturnType<typeof createServer>;

beforeAll(async () => {
  const app = express();
  app.use((req, res) => {
    routed++;
    res.json({ headers: req.rawHeaders.length / 2 });
  });
  const log = { info: (message: string, meta: unknown) => logged.push([message, meta]) } as unknown as Logger;
  server = createServer(app, log);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});
beforeEach(() => {
  logged.length = 0;
  routed = 0;
});

/** Sends bytes as they are and resolves with everything answered until the server closes. */
function exchange(payload: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: "127.0.0.1", port });
    let data = "";
    socket.on("data", (c) => (data += c.toString("latin1")));
    socket.on("close", () => resolve(data));
    socket.on("error", reject);
    socket.setTimeout(5000, () => reject(new Error(`the connection stayed open: ${data.slice(0, 200)}`)));
    socket.write(payload);
  });
}

/** Short lines, which Node's own limit (names and values only) barely counts. */
const shortLines = (count: number) => Array.from({ length: count }, (_, i) => `x${i.toString(36)}: v\r\n`).join("");

/** A request whose header section is exactly `size` bytes: request line, 1,000 short lines, one padded line, the empty line. */
function sectionOf(size: number, { method = "GET", target = "/x", extra = "" } = {}): string {
  const without = `${method} ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n${extra}${shortLines(1000)}x-pad: \r\n\r\n`;
  return without.replace("x-pad: ", `x-pad: ${"a".repeat(size - without.length)}`);
}

describe("the header section's 16 KiB", () => {
  it("counts request line, header lines and the empty line: 16,384 bytes reach the app, 16,385 are 431", async () => {
    const at = sectionOf(LIMIT);
    expect(at.length).toBe(LIMIT);
    const accepted = await exchange(at);
    expect(accepted).toMatch(/^HTTP\/1\.1 200 /);
    expect(accepted).toContain('{"headers":1003}');

    const over = await exchange(sectionOf(LIMIT + 1));
    expect(over).toMatch(/^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
    expect(over).toContain("ttr-error: Request headers larger than 16 KiB\r\n");
    expect(over).toMatch(/Content-Length: 0\r\n/);
    expect(over).not.toMatch(/content-type/i);
    expect(over).toMatch(/\r\n\r\n$/);
    expect(routed).toBe(1);
    expect(logged).toEqual([["request", { status: 431, refused: "HPE_HEADER_OVERFLOW" }]]);
  });

  it("the request target counts: a long URL with short lines that fit only without it is 431", async () => {
    const target = `/x?${"q".repeat(9000)}`;
    const over = `GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n${shortLines(1000)}\r\n`;
    expect(over.length).toBeGreaterThan(LIMIT);
    expect(over.length - target.length).toBeLessThan(LIMIT);
    expect(await exchange(over)).toMatch(/^HTTP\/1\.1 431 /);
    expect(routed).toBe(0);
  });

  it("a request sent on behind a refused one on the same connection reaches no route and gets no answer", async () => {
    const head = sectionOf(LIMIT + 1).replace("Connection: close\r\n", "Content-Length: 5\r\n");
    const answer = await exchange(`${head}hello${"GET /x HTTP/1.1\r\nHost: x\r\n\r\n"}`);
    expect(answer.match(/HTTP\/1\.1 /g)).toHaveLength(1);
    expect(answer).toMatch(/^HTTP\/1\.1 431 [\s\S]*connection: close/i);
    expect(routed).toBe(0);
  });

  it("Expect: 100-continue over the limit gets its 431 without a 100 Continue; within it, the app's answer", async () => {
    const over = await exchange(sectionOf(LIMIT + 1, { extra: "Expect: 100-continue\r\nContent-Length: 0\r\n" }));
    expect(over).toMatch(/^HTTP\/1\.1 431 /);
    expect(over).not.toContain("100 Continue");
    // the stand-in reads no body, so it is never asked for (http/body.ts)
    const within = await exchange(sectionOf(LIMIT, { extra: "Expect: 100-continue\r\nContent-Length: 0\r\n" }));
    expect(within).toMatch(/^HTTP\/1\.1 200 /);
    expect(await exchange(sectionOf(LIMIT + 1, { extra: "Expect: something-else\r\n" }))).toMatch(/^HTTP\/1\.1 431 /);
    expect(await exchange(sectionOf(LIMIT, { extra: "Expect: something-else\r\n" }))).toMatch(/^HTTP\/1\.1 417 /);
    expect(routed).toBe(1);
  });

  it("CONNECT over the limit is 431 too", async () => {
    const connect = { method: "CONNECT", target: "example.com:443" };
    expect(await exchange(sectionOf(LIMIT + 1, connect))).toMatch(/^HTTP\/1\.1 431 [\s\S]*Content-Length: 0\r\n/);
    expect(logged).toEqual([["request", { status: 431, refused: "HPE_HEADER_OVERFLOW" }]]);
    expect(await exchange(sectionOf(LIMIT, connect))).toMatch(/^HTTP\/1\.1 400 /);
  });

  it("one header over the limit is still refused by the parser, with the same answer and log line", async () => {
    const answer = await exchange(`GET /x HTTP/1.1\r\nHost: x\r\nx-big: ${"a".repeat(17 * 1024)}\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
    expect(answer).toContain("ttr-error: Request headers larger than 16 KiB\r\n");
    expect(answer).toMatch(/Content-Length: 0\r\n/);
    expect(answer).toMatch(/\r\n\r\n$/);
    expect(logged).toEqual([["request", { status: 431, refused: "HPE_HEADER_OVERFLOW" }]]);
  });
});

describe("the time to send the headers", () => {
  it("is 20 s by default", () => {
    expect(server.headersTimeout).toBe(20_000);
  });

  it("a client that sends its headers too slowly, or nothing, gets 408 with a reason and the connection closes", async () => {
    const app = express();
    app.use((_req, res) => res.end());
    const slow = createServer(app, undefined, { headersTimeoutMs: 1000 });
    await new Promise<void>((r) => slow.listen(0, "127.0.0.1", r));
    const at = (slow.address() as AddressInfo).port;
    const answer = (drip: boolean) =>
      new Promise<{ data: string; ms: number }>((resolve, reject) => {
        const started = Date.now();
        const socket = net.connect({ host: "127.0.0.1", port: at });
        let data = "";
        socket.on("data", (c) => (data += c.toString("latin1")));
        socket.on("error", reject);
        socket.setTimeout(10_000, () => reject(new Error("the connection stayed open")));
        const timer = drip ? setInterval(() => socket.writable && socket.write("x"), 200) : undefined;
        if (drip) socket.write("GET / HTTP/1.1\r\nx-slow: ");
        socket.on("close", () => {
          clearInterval(timer);
          resolve({ data, ms: Date.now() - started });
        });
      });
    try {
      for (const drip of [true, false]) {
        const { data, ms } = await answer(drip);
        expect(data).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
        expect(data).toContain("ttr-error: Request headers not received in time\r\n");
        expect(ms).toBeGreaterThanOrEqual(1000);
        expect(ms).toBeLessThan(3500);
      }
    } finally {
      slow.closeAllConnections();
      await new Promise((r) => slow.close(r));
    }
  });
});
