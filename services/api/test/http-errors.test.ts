// docs/api/errors.md (empty bodies), sizes in docs/api/README.md, the ops
// endpoints (docs/operations.md), and the body-read failure row of the /schedule checks.
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type TestApi } from "../../../test/support/api.js";
import { expectNoWrites } from "../../../test/support/snapshot.js";

let api: TestApi;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

function rawExchange(payload: string, halfClose: boolean): Promise<string> {
  const { port } = new URL(api.base);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: "127.0.0.1", port: Number(port), allowHalfOpen: true });
    let data = "";
    socket.on("data", (c) => (data += c.toString("latin1")));
    socket.on("end", () => resolve(data));
    socket.on("close", () => resolve(data));
    socket.on("error", reject);
    socket.write(payload, () => {
      if (halfClose) socket.end();
    });
  });
}

describe("errors without a JSON body", () => {
  it("404 with an empty body for unknown paths and methods a path does not accept", async () => {
    for (const [method, path] of [["GET", "/nope"], ["POST", "/cancel"], ["GET", "/cancel"], ["GET", "/declare"], ["PUT", "/"]] as const) {
      const res = await api.call(method, path, { "ttr-api-key": api.apiKey });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.length).toBe(0);
    }
  });

  it("paths match exactly: another case or a trailing slash is 404, and so is HEAD where GET is an endpoint; HEAD /schedule errors say why in ttr-error", async () => {
    const key = { "ttr-api-key": api.apiKey };
    expect((await api.call("GET", "/tag-policies", key)).status).toBe(200);
    for (const [method, path] of [["GET", "/Tag-Policies"], ["GET", "/tag-policies/"], ["POST", "/Schedule"], ["POST", "/schedule/"], ["HEAD", "/tag-policies"], ["HEAD", "/triggers"], ["HEAD", "/project"]] as const) {
      const res = await api.call(method, path, { ...key, "ttr-url": "http://127.0.0.1:9/", "ttr-scheduled-at": "2099-01-01T00:00:00Z" });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.length).toBe(0);
    }
    // HEAD is a method /schedule stores like any other; probes and the dashboard answer it.
    const head = await api.call("HEAD", "/schedule", { ...key, "ttr-url": "http://127.0.0.1:9/", "ttr-scheduled-at": "2099-01-01T00:00:00Z" });
    expect(head.status).toBe(200);
    const [row] = await api.db.$queryRawUnsafe<Array<{ method: string }>>("SELECT method FROM triggers ORDER BY created_at DESC LIMIT 1");
    expect(row?.method).toBe("HEAD");
    expect((await api.call("HEAD", "/healthz")).status).toBe(200);
    // Its errors have no body to carry the message: ttr-error does.
    for (const [headers, status, message] of [
      [{ "ttr-api-key": "nope", "ttr-url": "http://127.0.0.1:9/", "ttr-scheduled-at": "now" }, 401, "Invalid api key"],
      [{ ...key, "ttr-url": "nope", "ttr-scheduled-at": "now" }, 400, "Invalid URL: nope"],
      [{ ...key, "ttr-url": "http://127.0.0.1:9/", "ttr-scheduled-at": "later" }, 400, "Invalid date: later"],
    ] as const) {
      const res = await api.call("HEAD", "/schedule", headers);
      expect([res.status, res.headers["ttr-error"], res.body.length]).toEqual([status, message, 0]);
    }
  });

  it("a path segment that is not valid percent-encoding is taken literally: an unknown tag policy, not a decoding error", async () => {
    const key = { "ttr-api-key": api.apiKey, "content-type": "application/json" };
    for (const [method, path] of [["PUT", "/tag-policies/%zz"], ["DELETE", "/tag-policies/%zz"], ["DELETE", "/tag-policies/%ff%fe"], ["PUT", "/tag-policies/50%"]] as const) {
      const res = await api.call(method, path, key, "{}");
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.json()).toEqual({ _tag: "NotFound", message: "Tag policy not found" });
    }
    // The API key is still checked first (the check order in docs/api/errors.md).
    expect((await api.call("DELETE", "/tag-policies/%zz", { "ttr-api-key": "nope" })).status).toBe(401);
  });

  it("a method Node's parser cannot read is a 400 with an empty body, CONNECT included", async () => {
    for (const method of ["FOO", "post", "CONNECT"]) {
      const answer = await rawExchange(`${method} /schedule HTTP/1.1\r\nHost: x\r\nttr-api-key: ${api.apiKey}\r\nttr-url: http://127.0.0.1:9/\r\nContent-Length: 0\r\n\r\n`, false);
      expect(answer, method).toMatch(/^HTTP\/1\.1 400 /);
      expect(answer, method).toMatch(/Content-Length: 0\r\n/);
    }
  });

  it("431 with an empty body for request headers over 16 KiB", async () => {
    const res = await api.call("POST", "/schedule", { "ttr-api-key": api.apiKey, "ttr-url": "http://x/", "x-big": "a".repeat(17 * 1024) }).catch((e: Error) => e);
    if (res instanceof Error) throw res;
    expect(res.status).toBe(431);
    expect(res.body.length).toBe(0);
  });

  // `x<n>: v` lines: Node's parser counts only names and values toward its
  // limit, and by default kept the first 1,000 lines and dropped the rest.
  const shortLines = (count: number) => Array.from({ length: count }, (_, i) => `x${i.toString(36)}: v\r\n`).join("");
  const scheduleHead = (custom: string, lines: string, ttrFirst = false) => {
    const ttr = `ttr-api-key: ${api.apiKey}\r\nttr-url: http://127.0.0.1:9/\r\nttr-scheduled-at: 2099-01-01T00:00:00Z\r\nttr-custom-key: ${custom}\r\n`;
    return `POST /schedule HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 0\r\n${ttrFirst ? ttr + lines : lines + ttr}\r\n`;
  };

  it("431 with an empty body for a header section over 16 KiB of many short lines, before any route runs", async () => {
    const head = scheduleHead("many-over", shortLines(2100));
    expect(head.length).toBeGreaterThan(16 * 1024);
    const answer = await expectNoWrites(api.db, () => rawExchange(head, false));
    expect(answer).toMatch(/^HTTP\/1\.1 431 /);
    expect(answer).toContain("ttr-error: Request headers larger than 16 KiB");
    expect(answer).toMatch(/Content-Length: 0\r\n/);
    expect(answer).toMatch(/\r\n\r\n$/);
    expect(answer.toLowerCase()).toContain("connection: close");
    // any path, one a route would answer 404
    expect(await rawExchange(`GET /nope HTTP/1.1\r\nHost: x\r\n${shortLines(2100)}\r\n`, false)).toMatch(/^HTTP\/1\.1 431 [\s\S]*\r\n\r\n$/);
  });

  it("1,500 short header lines under 16 KiB: all stored for forwarding, and ttr- headers sent after them are read", async () => {
    const lines = shortLines(1500);
    const sent = lines.split("\r\n").filter(Boolean).map((line) => line.split(": ") as [string, string]);
    for (const ttrFirst of [false, true]) {
      const custom = `many-under-${ttrFirst}`;
      const head = scheduleHead(custom, lines, ttrFirst);
      expect(head.length).toBeLessThan(16 * 1024);
      const answer = await rawExchange(head, false);
      expect(answer, `ttr- headers first: ${ttrFirst}`).toMatch(/^HTTP\/1\.1 200 /);
      const [row] = await api.db.$queryRawUnsafe<Array<{ headers: Array<[string, string]> }>>("SELECT headers FROM triggers WHERE custom_key = $1", custom);
      expect(row?.headers, `ttr- headers first: ${ttrFirst}`).toEqual(sent);
    }
  });

  it("400 Failed to read request body when the body ends early", async () => {
    const payload =
      "POST /schedule HTTP/1.1\r\nHost: x\r\n" +
      `ttr-api-key: ${api.apiKey}\r\nttr-url: http://127.0.0.1:9/\r\nttr-scheduled-at: now\r\n` +
      "Content-Length: 100\r\n\r\nonly-some-bytes";
    const answer = await expectNoWrites(api.db, () => rawExchange(payload, true));
    expect(answer).toMatch(/^HTTP\/1\.1 400/);
    expect(answer).toContain('{"_tag":"BadRequest","message":"Failed to read request body"}');
  });

  // Node's parser rejects these bodies; the route still answers, its header checks first.
  const badChunks = "Transfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n";
  // ... whatever the parser's error: a bare line feed after a chunk size, a malformed trailer
  const otherBadBodies = ["Transfer-Encoding: chunked\r\n\r\n3\nabc\r\n0\r\n\r\n", "Transfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\nbad trailer\r\n\r\n"];

  it("a missing header is answered before a body the parser rejects: the empty 400, once, and the connection closes", async () => {
    const noKey = `POST /schedule HTTP/1.1\r\nHost: x\r\nttr-url: http://127.0.0.1:9/\r\n${badChunks}`;
    const answer = await expectNoWrites(api.db, () => rawExchange(noKey, false));
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toContain("ttr-error: ttr-api-key header is required");
    expect(answer.toLowerCase()).toContain("connection: close");
    expect(answer).toMatch(/Content-Length: 0\r\n\r\n$/);

    for (const body of otherBadBodies) {
      const other = await rawExchange(`POST /schedule HTTP/1.1\r\nHost: x\r\nttr-url: http://127.0.0.1:9/\r\n${body}`, false);
      expect(other.match(/HTTP\/1\.1 /g), other).toHaveLength(1);
      expect(other).toContain("ttr-error: ttr-api-key header is required");
    }

    // cut short, then the client's end of the connection: still a single answer
    const short = `POST /schedule HTTP/1.1\r\nHost: x\r\nttr-url: http://127.0.0.1:9/\r\nContent-Length: 100\r\n\r\n0123456789`;
    const once = await rawExchange(short, true);
    expect(once.match(/HTTP\/1\.1 /g)).toHaveLength(1);
    expect(once).toContain("ttr-error: ttr-api-key header is required");
  });

  it("a GET /schedule stores no body, so a rejected one does not hide the route's own checks", async () => {
    const get = `GET /schedule HTTP/1.1\r\nHost: x\r\nttr-api-key: ${api.apiKey}\r\nttr-url: bad\r\n${badChunks}`;
    const answer = await expectNoWrites(api.db, () => rawExchange(get, false));
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toContain('{"_tag":"BadRequest","message":"Invalid URL: bad"}');
  });

  it("a rejected body on a route that reads it: 400 Failed to read request body at once (and sign-in's own 400)", async () => {
    const post = `POST /schedule HTTP/1.1\r\nHost: x\r\nttr-api-key: ${api.apiKey}\r\nttr-url: http://127.0.0.1:9/\r\nttr-scheduled-at: now\r\n${badChunks}`;
    expect(await expectNoWrites(api.db, () => rawExchange(post, false))).toContain('{"_tag":"BadRequest","message":"Failed to read request body"}');
    for (const body of otherBadBodies) {
      const other = await rawExchange(post.replace(badChunks, body), false);
      expect(other.match(/HTTP\/1\.1 /g), other).toHaveLength(1);
      expect(other).toContain('{"_tag":"BadRequest","message":"Failed to read request body"}');
    }
    const started = Date.now();
    const login = await rawExchange(`POST /auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${badChunks}`, false);
    expect(login).toMatch(/^HTTP\/1\.1 400 [\s\S]*"_tag":"BadRequest"/);
    expect(Date.now() - started).toBeLessThan(2000);
  });
});

describe("operations endpoints (docs/operations.md)", () => {
  it("413 for a body declared far over the limit: answered at once and the connection closed, the body never read", async () => {
    const { port } = new URL(api.base);
    const declared = 50 * 1024 * 1024;
    const result = await new Promise<{ head: string; closedAfterMs: number }>((resolve, reject) => {
      const socket = net.connect({ host: "127.0.0.1", port: Number(port) });
      let data = "";
      const started = Date.now();
      socket.on("data", (c) => (data += c.toString("latin1")));
      socket.on("close", () => resolve({ head: data, closedAfterMs: Date.now() - started }));
      socket.on("error", () => resolve({ head: data, closedAfterMs: Date.now() - started }));
      socket.setTimeout(5000, () => reject(new Error(`the connection stayed open: ${data}`)));
      const head = `POST /declare HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n`;
      // a first megabyte only: the rest is never sent, and never waited for
      socket.write(head + "[".repeat(1024 * 1024));
    });
    expect(result.head).toMatch(/^HTTP\/1\.1 413 /);
    expect(result.head.toLowerCase()).toContain("connection: close");
    expect(result.head).toContain('"_tag":"PayloadTooLarge"');
    expect(result.closedAfterMs).toBeLessThan(5000);
  });

  it("413 a little over the limit keeps the connection: the rest is read and dropped, and the next request is answered", async () => {
    const body = "a".repeat(1024 * 1024 + 10);
    const first = `POST /schedule HTTP/1.1\r\nHost: x\r\nttr-api-key: ${api.apiKey}\r\nttr-url: http://example.com/\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    const second = "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    const answer = await rawExchange(first + second, false);
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer.split("\r\n\r\n")[0]!.toLowerCase()).not.toContain("connection: close");
    expect(answer).toMatch(/HTTP\/1\.1 200 [\s\S]*"status":"ok"/);
  });

  it("answers /healthz, /readyz and /metrics", async () => {
    const health = await api.call("GET", "/healthz");
    expect(health.status).toBe(200);
    expect(health.json()).toEqual({ status: "ok" });
    expect((await api.call("GET", "/readyz")).status).toBe(200);
    await api.call("POST", "/schedule", { "ttr-api-key": api.apiKey, "ttr-url": "http://x/", "ttr-scheduled-at": "now | add 1h" });
    const metrics = await api.call("GET", "/metrics");
    expect(metrics.status).toBe(200);
    expect(metrics.text).toMatch(/ttr_api_requests_total\{[^}]*route="\/schedule"[^}]*status="200"/);
    // the dashboard's pages are counted under their own full path pattern
    expect((await api.call("GET", "/dashboard/triggers")).status).toBe(200);
    const after = (await api.call("GET", "/metrics")).text;
    expect(after).toMatch(/ttr_api_requests_total\{[^}]*route="\/dashboard\/\{\*rest\}"[^}]*status="200"/);
    expect(after).not.toMatch(/route="\/\{\*rest\}"/);
  });

  it("counts requests refused before any route (a malformed one, headers over 16 KiB) as unmatched", async () => {
    const count = async (status: string) => {
      const text = (await api.call("GET", "/metrics")).text;
      const line = text.split("\n").find((l) => l.startsWith("ttr_api_requests_total{") && l.includes('route="unmatched"') && l.includes(`status="${status}"`));
      return line ? Number(line.split(" ").at(-1)) : 0;
    };
    const [bad, large] = [await count("400"), await count("431")];
    expect(await rawExchange("GARBAGE\r\n\r\n", false)).toMatch(/^HTTP\/1\.1 400 /);
    expect(await rawExchange(`GET /healthz HTTP/1.1\r\nHost: x\r\nx-big: ${"a".repeat(17 * 1024)}\r\n\r\n`, false)).toMatch(/^HTTP\/1\.1 431 /);
    expect(await count("400")).toBe(bad + 1);
    expect(await count("431")).toBe(large + 1);
  });
});
