// How the api answers requests by the way they are sent rather than by what
// they ask (docs/api/errors.md): answers in request order on a connection
// whose later bytes cannot be read, Expect, transfer codings, Host, and a
// body that cannot be read on the JSON endpoints. Raw sockets throughout:
// an HTTP client library would not send most of these.
import type { AddressInfo } from "node:net";
import net from "node:net";
import { gzipSync } from "node:zlib";
import { createServer } from "@ttr/api/server";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type TestApi } from "../../../test/support/api.js";
import { expectNoWrites } from "../../../test/support/snapshot.js";

let api: TestApi;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

interface Talk {
  data: string;
  /** whether the server closed the connection (rather than falling silent for `idleMs`) */
  closed: boolean;
}

/**
 * Sends `payload`, then `more` once the answers so far contain `when`, and
 * resolves with everything answered once the server closes the connection,
 * or once it has been silent for `idleMs`.
 */
function talk(port: number, payload: string | Buffer, opts: { halfClose?: boolean; when?: string; more?: string; idleMs?: number } = {}): Promise<Talk> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: "127.0.0.1", port, allowHalfOpen: true });
    let data = "";
    let sent = false;
    let idle: NodeJS.Timeout | undefined;
    const done = (closed: boolean) => {
      clearTimeout(idle);
      socket.destroy();
      resolve({ data, closed });
    };
    const arm = () => {
      clearTimeout(idle);
      idle = setTimeout(() => done(false), opts.idleMs ?? 2000);
    };
    socket.on("data", (chunk) => {
      data += chunk.toString("latin1");
      arm();
      if (opts.more !== undefined && !sent && data.includes(opts.when ?? "")) {
        sent = true;
        socket.write(opts.more);
      }
    });
    socket.on("end", () => done(true));
    socket.on("close", () => done(true));
    socket.on("error", reject);
    socket.write(payload, () => {
      if (opts.halfClose) socket.end();
      arm();
    });
  });
}

const apiPort = () => Number(new URL(api.base).port);

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** The answers in `data`, one after another, each as long as its Content-Length says; a 100 Continue counts as one. */
function answers(data: string): Answer[] {
  const out: Answer[] = [];
  let rest = data;
  while (rest.length > 0) {
    const end = rest.indexOf("\r\n\r\n");
    if (end === -1) throw new Error(`not an answer: ${JSON.stringify(rest.slice(0, 200))}`);
    const [statusLine, ...lines] = rest.slice(0, end).split("\r\n");
    const match = /^HTTP\/1\.1 (\d{3}) /.exec(statusLine!);
    if (!match) throw new Error(`not a status line: ${JSON.stringify(statusLine)}`);
    const headers: Record<string, string> = {};
    for (const line of lines) headers[line.slice(0, line.indexOf(":")).toLowerCase()] = line.slice(line.indexOf(":") + 1).trim();
    const length = Number(headers["content-length"] ?? 0);
    out.push({ status: Number(match[1]), headers, body: rest.slice(end + 4, end + 4 + length) });
    rest = rest.slice(end + 4 + length);
  }
  return out;
}

const key = () => `ttr-api-key: ${api.apiKey}\r\n`;
const schedule = (custom: string, extra = "") =>
  `POST /schedule HTTP/1.1\r\nHost: x\r\n${extra}${key()}ttr-url: http://127.0.0.1:9/\r\nttr-scheduled-at: 2099-01-01T00:00:00Z\r\nttr-custom-key: ${custom}\r\nContent-Length: 2\r\n\r\nhi`;
const stored = async (custom: string) =>
  (await api.db.$queryRawUnsafe<Array<{ n: bigint }>>("SELECT count(*) AS n FROM triggers WHERE custom_key = $1", custom))[0]!.n;

describe("answers go in request order when later bytes on the connection cannot be read", () => {
  const followers = [
    ["a malformed request", "GARBAGE\r\n\r\n", 400, "Malformed HTTP request"],
    ["a header line over 16 KiB", `GET /healthz HTTP/1.1\r\nHost: x\r\nx-big: ${"a".repeat(17 * 1024)}\r\n\r\n`, 431, "Request headers larger than 16 KiB"],
    ["Content-Length with Transfer-Encoding", "POST /schedule HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400, "Malformed HTTP request"],
  ] as const;
  for (const [label, follower, status, reason] of followers) {
    it(`a /schedule stored gets its 200 first, then ${label} its ${status}, and the connection closes`, async () => {
      const custom = `order-${status}-${label.length}`;
      const { data, closed } = await talk(apiPort(), schedule(custom) + follower);
      const [first, second, ...more] = answers(data);
      expect(first!.status, data).toBe(200);
      expect(JSON.parse(first!.body)).toMatchObject({ operation: "schedule" });
      expect([second!.status, second!.headers["ttr-error"], second!.headers.connection, second!.body]).toEqual([status, reason, "close", ""]);
      expect(more).toEqual([]);
      expect(closed).toBe(true);
      expect(await stored(custom)).toBe(1n);
    });
  }

  it("behind several requests still being answered, the refusal comes last", async () => {
    const { data } = await talk(apiPort(), `${schedule("order-several")}GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nGARBAGE\r\n\r\n`);
    expect(answers(data).map((a) => a.status)).toEqual([200, 200, 400]);
  });

  it("bytes after a request sent with Connection: close get no answer: that request's own answer goes, then the connection closes", async () => {
    const { data, closed } = await talk(apiPort(), `${schedule("order-close", "Connection: close\r\n")}GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n`);
    const all = answers(data);
    expect(all.map((a) => a.status)).toEqual([200]);
    expect(JSON.parse(all[0]!.body)).toMatchObject({ operation: "schedule" });
    expect(closed).toBe(true);
    expect(await stored("order-close")).toBe(1n);
  });
});

describe("Expect: 100-continue", () => {
  const expecting = (head: string) => head.replace("Host: x\r\n", "Host: x\r\nExpect: 100-continue\r\n");

  it("an answer the headers decide comes without a 100 Continue, and closes the connection", async () => {
    const cases = [
      [413, `POST /schedule HTTP/1.1\r\nHost: x\r\n${key()}ttr-url: http://127.0.0.1:9/\r\nContent-Length: ${50 * 1024 * 1024}\r\n\r\n`],
      // a little over the limit: without the 100 the client may not send it, so it is not drained
      [413, `POST /schedule HTTP/1.1\r\nHost: x\r\n${key()}ttr-url: http://127.0.0.1:9/\r\nContent-Length: ${1024 * 1024 + 10}\r\n\r\n`],
      [404, "POST /nope HTTP/1.1\r\nHost: x\r\nContent-Length: 20\r\n\r\n"],
      [415, `POST /declare HTTP/1.1\r\nHost: x\r\n${key()}Content-Type: text/plain\r\nContent-Length: 20\r\n\r\n`],
      [400, "POST /schedule HTTP/1.1\r\nHost: x\r\nttr-url: http://127.0.0.1:9/\r\nContent-Length: 20\r\n\r\n"],
    ] as const;
    for (const [status, head] of cases) {
      const { data, closed } = await expectNoWrites(api.db, () => talk(apiPort(), expecting(head)));
      const all = answers(data);
      expect(all.map((a) => a.status), data).toEqual([status]);
      expect(all[0]!.headers.connection, data).toBe("close");
      expect(closed).toBe(true);
    }
  });

  it("the 100 comes once the endpoint reads the body; the connection then stays usable", async () => {
    const head = expecting(schedule("continued").replace(/hi$/, ""));
    const { data, closed } = await talk(apiPort(), head, { when: "100 Continue\r\n\r\n", more: "hiGET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" });
    const all = answers(data);
    expect(all.map((a) => a.status), data).toEqual([100, 200, 200]);
    expect(all[1]!.headers.connection).toBe("keep-alive");
    expect(all[2]!.body).toBe('{"status":"ok"}');
    expect(closed).toBe(true);
    const [row] = await api.db.$queryRawUnsafe<Array<{ body: Buffer }>>("SELECT body FROM triggers WHERE custom_key = 'continued'");
    expect(Buffer.from(row!.body).toString()).toBe("hi");
  });
});

describe("refused on the headers alone, before any route: an empty body, ttr-error, and the connection closed", () => {
  /** The one answer to `payload`, after which the server closed the connection. */
  const refusal = async (payload: string | Buffer) => {
    const { data, closed } = await expectNoWrites(api.db, () => talk(apiPort(), payload));
    const all = answers(data);
    expect(all, data).toHaveLength(1);
    expect(closed).toBe(true);
    const [a] = all;
    expect([a!.headers.connection, a!.headers["content-length"], a!.headers["content-type"], a!.body]).toEqual(["close", "0", undefined, ""]);
    return a!;
  };

  it("417 for an Expect other than 100-continue; the body it declared is not read as a request", async () => {
    const a = await refusal(`POST /schedule HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\n${key()}ttr-url: http://127.0.0.1:9/\r\nContent-Length: 35\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect([a.status, a.headers["ttr-error"]]).toEqual([417, "Expect: 200-ok is not supported: only 100-continue is"]);
  });

  it("501 for a transfer coding other than chunked alone; chunked alone, in any case, is read", async () => {
    const gz = gzipSync("hello");
    const head = `POST /schedule HTTP/1.1\r\nHost: x\r\nConnection: close\r\n${key()}ttr-url: http://127.0.0.1:9/\r\nttr-scheduled-at: 2099-01-01T00:00:00Z\r\nttr-custom-key: coded\r\n`;
    const chunked = (codings: string, body: Buffer) =>
      Buffer.concat([Buffer.from(`${head}Transfer-Encoding: ${codings}\r\n\r\n${body.length.toString(16)}\r\n`), body, Buffer.from("\r\n0\r\n\r\n")]);
    for (const codings of ["gzip, chunked", "gzip\r\nTransfer-Encoding: chunked", "x-custom, Chunked"]) {
      const a = await refusal(chunked(codings, gz));
      expect(a.status, codings).toBe(501);
      expect(a.headers["ttr-error"], codings).toMatch(/^Transfer-Encoding .* is not supported/);
    }
    const { data } = await talk(apiPort(), chunked("Chunked", Buffer.from("hello")));
    expect(answers(data)[0]!.status).toBe(200);
    const [row] = await api.db.$queryRawUnsafe<Array<{ body: Buffer }>>("SELECT body FROM triggers WHERE custom_key = 'coded'");
    expect(Buffer.from(row!.body).toString()).toBe("hello");
  });

  it("400 for an HTTP/1.1 request without Host, or any with two; HTTP/1.0 needs none", async () => {
    const missing = await refusal("GET /healthz HTTP/1.1\r\n\r\n");
    expect([missing.status, missing.headers["ttr-error"]]).toEqual([400, "Host header is required"]);
    const twice = await refusal("GET /healthz HTTP/1.0\r\nHost: x\r\nHost: y\r\n\r\n");
    expect([twice.status, twice.headers["ttr-error"]]).toEqual([400, "Host header must be sent once"]);
    const old = answers((await talk(apiPort(), "GET /healthz HTTP/1.0\r\n\r\n")).data);
    expect(old.map((a) => [a.status, a.body])).toEqual([[200, '{"status":"ok"}']]);
  });

  it("400 Malformed HTTP request for Transfer-Encoding with Content-Length, in either order, on any path", async () => {
    const framings = ["Content-Length: 5\r\nTransfer-Encoding: chunked\r\n", "Transfer-Encoding: chunked\r\nContent-Length: 5\r\n"];
    for (const start of ["GET /nope HTTP/1.1\r\nHost: x\r\n", `POST /schedule HTTP/1.1\r\nHost: x\r\nttr-url: http://127.0.0.1:9/\r\n`]) {
      for (const framing of framings) {
        const a = await refusal(`${start}${framing}\r\n0\r\n\r\n`);
        expect([a.status, a.headers["ttr-error"]], start + framing).toEqual([400, "Malformed HTTP request"]);
      }
    }
  });
});

describe("a body that cannot be read to its end", () => {
  const cutShort = (path: string) => `POST ${path} HTTP/1.1\r\nHost: x\r\n${key()}Content-Type: application/json\r\nContent-Length: 30\r\n\r\n{"tag":"t"`;
  const badChunks = (path: string) => `POST ${path} HTTP/1.1\r\nHost: x\r\n${key()}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`;

  it("/declare, /bulk, /tag-policies and the dead-letter actions: 400 with an empty body, as for any body they cannot take", async () => {
    for (const path of ["/declare", "/bulk", "/tag-policies", "/dead-letters/discard"]) {
      for (const [how, payload, halfClose] of [["cut short", cutShort(path), true], ["bad chunk size", badChunks(path), false]] as const) {
        const { data } = await expectNoWrites(api.db, () => talk(apiPort(), payload, { halfClose }));
        const [a, ...more] = answers(data);
        expect([a!.status, a!.headers["ttr-error"], a!.headers["content-type"], a!.body], `${path} ${how}`).toEqual([400, "Failed to read request body", undefined, ""]);
        expect(more).toEqual([]);
      }
    }
  });

  it("the dashboard's POST /triggers says it in JSON, as its other 400s", async () => {
    const { data } = await talk(apiPort(), cutShort("/triggers"), { halfClose: true });
    const [a] = answers(data);
    expect([a!.status, a!.body]).toEqual([400, '{"_tag":"BadRequest","message":"Failed to read request body"}']);
  });

  describe("a route that never answers for it", () => {
    let port = 0;
    let server: ReturnType<typeof createServer>;
    beforeAll(async () => {
      const app = express();
      app.get("/slow", (_req, res) => void setTimeout(() => res.json({ slow: true }), 300));
      app.post(["/declare", "/schedule"], () => {});
      server = createServer(app, undefined, { routeAnswersWithinMs: 100 });
      await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
      port = (server.address() as AddressInfo).port;
    });
    afterAll(async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    });

    it("is answered for, as that endpoint answers, after any answer before it on the connection", async () => {
      const slow = "GET /slow HTTP/1.1\r\nHost: x\r\n\r\n";
      const empty = answers((await talk(port, slow + badChunks("/declare"))).data);
      expect(empty.map((a) => [a.status, a.headers["ttr-error"] ?? "", a.body])).toEqual([
        [200, "", '{"slow":true}'],
        [400, "Failed to read request body", ""],
      ]);
      const json = answers((await talk(port, badChunks("/schedule"))).data);
      expect(json.map((a) => [a.status, a.body])).toEqual([[400, '{"_tag":"BadRequest","message":"Failed to read request body"}']]);
    });
  });
});
