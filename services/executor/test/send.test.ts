// One attempt against a real target on 127.0.0.1: what arrives on the wire
// (SPEC §1 "What is sent"), every outcome of the SPEC §1 outcomes table with
// its SPEC §2 errorMessage, the timeout (SPEC §1 Timeouts) and what is kept
// of the response (SPEC §1 Response recording, SPEC §2 Execution fields).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  type AttemptResult,
  classify,
  destroyAgents,
  type HeaderPairs,
  type OutgoingRequest,
  type SendOptions,
  sendAttempt,
} from "../src/send.js";
import { closedPort, type Received, startTarget, type Target } from "./target-server.js";

let target: Target;
beforeAll(async () => {
  target = await startTarget();
});
afterAll(async () => {
  destroyAgents();
  await target.close();
});
beforeEach(() => {
  target.received.length = 0;
});

const OPTS: SendOptions = { timeoutSeconds: 5, blockPrivateNetworks: false };

function request(over: Partial<OutgoingRequest> = {}): OutgoingRequest {
  return { method: "GET", url: `${target.base}/echo`, headers: [], body: null, source: "schedule", ...over };
}

function send(over: Partial<OutgoingRequest> = {}, opts: Partial<SendOptions> = {}): Promise<AttemptResult> {
  return sendAttempt(request(over), { ...OPTS, ...opts });
}

function only(): Received {
  expect(target.received).toHaveLength(1);
  return target.received[0]!;
}

function header(r: Received, name: string): string | undefined {
  return r.headers.find(([n]) => n.toLowerCase() === name)?.[1];
}

function response(r: AttemptResult) {
  if (r.kind !== "response") throw new Error(`expected a response, got ${JSON.stringify(r)}`);
  return r;
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/;
const B3 = /^([0-9a-f]{32})-([0-9a-f]{16})-1$/;

describe("what a /schedule trigger sends", () => {
  it("sends the method, path and query, header lines and body bytes exactly, adding only Host, tracing, Content-Length and Connection", async () => {
    const body = new Uint8Array([0x00, 0xff, 0x10, 0x0a, 0x41, 0x00]);
    const stored: HeaderPairs = [
      ["X-Foo", "1"],
      ["x-foo", "2"],
      ["Content-Type", "application/octet-stream"],
      ["Accept-Encoding", "gzip, br"],
      ["X-Foo", "3"],
    ];
    const r = await send({ method: "POST", url: `${target.base}/echo?a=1&b=two%20words`, headers: stored, body });
    expect(classify(r)).toBe("success");
    const got = only();
    expect(got.method).toBe("POST");
    expect(got.url).toBe("/echo?a=1&b=two%20words");
    expect([...got.body]).toEqual([...body]);
    const traceparent = header(got, "traceparent")!;
    const b3 = header(got, "b3")!;
    expect(got.headers).toEqual([
      ["Host", `127.0.0.1:${target.port}`],
      ...stored,
      ["traceparent", traceparent],
      ["b3", b3],
      ["Content-Length", "6"],
      ["Connection", "keep-alive"],
    ]);
  });

  it("adds no user-agent, accept-encoding or delivery id of its own", async () => {
    await send();
    const names = only().headers.map(([n]) => n.toLowerCase());
    expect(names).toEqual(["host", "traceparent", "b3", "connection"]);
  });

  it("sends a body with GET, with its Content-Length", async () => {
    await send({ method: "GET", body: new TextEncoder().encode("get body") });
    const got = only();
    expect(got.method).toBe("GET");
    expect(got.body.toString()).toBe("get body");
    expect(header(got, "content-length")).toBe("8");
    expect(header(got, "transfer-encoding")).toBeUndefined();
  });

  it.each(["POST", "PUT", "PATCH"])("sends Content-Length: 0 for a %s without body", async (method) => {
    await send({ method });
    expect(header(only(), "content-length")).toBe("0");
    expect(header(only(), "transfer-encoding")).toBeUndefined();
  });

  it.each(["GET", "DELETE", "OPTIONS"])("sends no Content-Length for a %s without body", async (method) => {
    await send({ method, body: new Uint8Array(0) });
    expect(only().method).toBe(method);
    expect(header(only(), "content-length")).toBeUndefined();
    expect(header(only(), "transfer-encoding")).toBeUndefined();
  });

  it("sends an unusual method verbatim", async () => {
    await send({ method: "PURGE" });
    expect(only().method).toBe("PURGE");
  });

  it("replaces stored Host, Content-Length, traceparent and b3", async () => {
    const stale = "00-11111111111111111111111111111111-2222222222222222-01";
    await send({
      method: "POST",
      body: new TextEncoder().encode("abc"),
      headers: [
        ["Host", "elsewhere.example"],
        ["Content-Length", "99"],
        ["Traceparent", stale],
        ["B3", "1-2-1"],
        ["X-Kept", "yes"],
      ],
    });
    const got = only();
    expect(got.headers.filter(([n]) => n.toLowerCase() === "host")).toEqual([["Host", `127.0.0.1:${target.port}`]]);
    expect(got.headers.filter(([n]) => n.toLowerCase() === "content-length")).toEqual([["Content-Length", "3"]]);
    expect(got.headers.filter(([n]) => n.toLowerCase() === "traceparent")).toHaveLength(1);
    expect(header(got, "traceparent")).not.toBe(stale);
    expect(got.headers.filter(([n]) => n.toLowerCase() === "b3")).toHaveLength(1);
    expect(header(got, "x-kept")).toBe("yes");
  });

  it("sends new W3C traceparent and single-header b3 ids on every attempt", async () => {
    for (let i = 0; i < 5; i++) await send();
    const ids = target.received.map((r) => {
      const tp = TRACEPARENT.exec(header(r, "traceparent")!)!;
      const b3 = B3.exec(header(r, "b3")!)!;
      expect(tp).not.toBeNull();
      expect(b3).not.toBeNull();
      expect([b3[1], b3[2]]).toEqual([tp[1], tp[2]]);
      expect(tp[1]).not.toMatch(/^0+$/);
      expect(tp[2]).not.toMatch(/^0+$/);
      return `${tp[1]}-${tp[2]}`;
    });
    expect(new Set(ids).size).toBe(5);
    expect(new Set(ids.map((id) => id.slice(0, 32))).size).toBe(5);
  });

  it("answers Transport error for an unparsable stored URL", async () => {
    const r = await send({ url: "not a url" });
    expect(r).toEqual({ kind: "network", errorMessage: "Transport error (GET not a url)", timedOut: false });
  });
});

describe("what a /declare or /bulk item sends", () => {
  it("sends names in lowercase, the item's host as Host and a computed content-length", async () => {
    const r = await send({
      source: "item",
      method: "PUT",
      url: `${target.base}/echo?x=1`,
      headers: [
        ["X-Mixed-Case", "v"],
        ["Host", "virtual.example"],
        ["Content-Length", "999"],
        ["TTR-Forwarded", "yes"],
      ],
      body: new TextEncoder().encode("hello"),
    });
    expect(classify(r)).toBe("success");
    const got = only();
    expect(got.url).toBe("/echo?x=1");
    expect(got.body.toString()).toBe("hello");
    expect(got.headers).toEqual([
      ["host", "virtual.example"],
      ["x-mixed-case", "v"],
      ["ttr-forwarded", "yes"],
      ["traceparent", header(got, "traceparent")],
      ["b3", header(got, "b3")],
      ["content-length", "5"],
      ["connection", "keep-alive"],
    ]);
  });

  it("sends credentials in the URL as Basic authorization, unless the request has its own", async () => {
    const base = new URL(target.base);
    const url = `http://us%20er:p%40ss@${base.host}/echo`;
    for (const source of ["item", "schedule"] as const) {
      target.received.length = 0;
      expect(classify(await send({ source, url }))).toBe("success");
      expect(header(only(), "authorization")).toBe(`Basic ${Buffer.from("us er:p@ss").toString("base64")}`);
      target.received.length = 0;
      expect(classify(await send({ source, url, headers: [["Authorization", "Bearer mine"]] }))).toBe("success");
      expect(only().headers.filter(([n]) => n.toLowerCase() === "authorization")).toEqual([[source === "item" ? "authorization" : "Authorization", "Bearer mine"]]);
    }
  });

  it.each(["close", "Keep-Alive"])("sends Connection: %s", async (value) => {
    const r = await send({ source: "item", headers: [["Connection", value]] });
    expect(classify(r)).toBe("success");
    expect(only().headers.filter(([n]) => n.toLowerCase() === "connection")).toEqual([["connection", value]]);
  });

  it.each([
    ["Keep-Alive", "timeout=5"],
    ["Transfer-Encoding", "chunked"],
    ["Upgrade", "websocket"],
    ["Connection", "upgrade"],
    ["Connection", "close, x-other"],
  ])("fails as a Transport error with %s: %s, and the target receives nothing", async (name, value) => {
    const url = `${target.base}/echo?q=1`;
    const r = await send({ source: "item", method: "POST", url, headers: [[name, value]] });
    expect(r).toEqual({ kind: "network", errorMessage: `Transport error (POST ${url})`, timedOut: false });
    expect(classify(r)).toBe("network_failure");
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(target.received).toHaveLength(0);
  });

  it.each([
    ["bad name", "v"],
    ["x-split", "a\r\nInjected: yes"],
  ])("fails as a Transport error for a header line HTTP cannot carry (%j)", async (name, value) => {
    const url = `${target.base}/echo`;
    expect(await send({ source: "item", url, headers: [[name, value]] })).toEqual({
      kind: "network",
      errorMessage: `Transport error (GET ${url})`,
      timedOut: false,
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(target.received).toHaveLength(0);
  });

  it("answers InvalidUrl error for a URL that does not parse", async () => {
    const r = await send({ source: "item", method: "DELETE", url: "http://exa mple.com/x?y" });
    expect(r).toEqual({ kind: "network", errorMessage: "InvalidUrl error (DELETE http://exa mple.com/x?y)", timedOut: false });
  });
});

describe("outcomes", () => {
  it("records a 2xx as a success: status, lowercase headers, body and size", async () => {
    const r = response(await send({ url: `${target.base}/status/201` }));
    expect(classify(r)).toBe("success");
    expect(r.status).toBe(201);
    expect(r.body).toBe("status 201");
    expect(r.size).toBe(10);
    expect(r.headers["content-type"]).toBe("text/plain");
  });

  it("records a 3xx as an HTTP failure and never requests its Location", async () => {
    const r = response(await send({ url: `${target.base}/redirect` }));
    expect(classify(r)).toBe("http_failure");
    expect(r.status).toBe(302);
    expect(r.headers.location).toBe("/redirected");
    expect(r.body).toBe("moved");
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(target.count("/redirected")).toBe(0);
    expect(target.received).toHaveLength(1);
  });

  it.each([404, 500])("records a %i as an HTTP failure with its body", async (code) => {
    const r = response(await send({ url: `${target.base}/status/${code}` }));
    expect(classify(r)).toBe("http_failure");
    expect(r.status).toBe(code);
    expect(r.body).toBe(`status ${code}`);
  });

  it("fails as a Transport error when the connection is refused", async () => {
    const url = `http://127.0.0.1:${await closedPort()}/x?y=1`;
    expect(await send({ url, method: "POST" })).toEqual({
      kind: "network",
      errorMessage: `Transport error (POST ${url})`,
      timedOut: false,
    });
  });

  it("fails as a Transport error when DNS fails", async () => {
    const r = await send({ url: "http://nonexistent.invalid/" });
    expect(r).toEqual({ kind: "network", errorMessage: "Transport error (GET http://nonexistent.invalid/)", timedOut: false });
  });

  it("fails as a Transport error when TLS fails", async () => {
    const url = `https://127.0.0.1:${target.port}/`;
    expect(await send({ url })).toEqual({ kind: "network", errorMessage: `Transport error (GET ${url})`, timedOut: false });
  });

  it.each(["schedule", "item"] as const)("fails as a Transport error for a non-http scheme (%s)", async (source) => {
    for (const url of ["ftp://example.com/file", "mailto:someone@example.com", "file:///etc/passwd"]) {
      expect(await send({ source, url })).toEqual({ kind: "network", errorMessage: `Transport error (GET ${url})`, timedOut: false });
    }
  });

  it("records a 101 answer as an HTTP failure at once, not a timeout", async () => {
    const net = await import("node:net");
    const server = net.createServer((socket) => {
      socket.once("data", () => socket.write("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nX-Why: test\r\n\r\n"));
      socket.on("error", () => {});
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const { port } = server.address() as import("node:net").AddressInfo;
      const started = performance.now();
      const r = response(await send({ url: `http://127.0.0.1:${port}/ws` }, { timeoutSeconds: 5 }));
      expect(performance.now() - started).toBeLessThan(1000);
      expect(r).toMatchObject({ status: 101, body: "", size: 0 });
      expect(r.headers).toMatchObject({ upgrade: "websocket", "x-why": "test" });
      expect(classify(r)).toBe("http_failure");
    } finally {
      server.close();
    }
  });

  it("fails as a Transport error when the connection closes before headers", async () => {
    const url = `${target.base}/close-before-headers`;
    expect(await send({ url })).toEqual({ kind: "network", errorMessage: `Transport error (GET ${url})`, timedOut: false });
  });

  it("times out while waiting for status and headers, after the timeout and no later than half a second past it", async () => {
    const url = `${target.base}/hang`;
    const started = performance.now();
    const r = await send({ url }, { timeoutSeconds: 1 });
    const elapsed = performance.now() - started;
    expect(r).toEqual({ kind: "network", errorMessage: '{"errorMessage":"Request timed out after 1s"}', timedOut: true });
    expect(classify(r)).toBe("network_failure");
    // libuv measures timers from its cached loop time, which can trail the clock by a few ms.
    expect(elapsed).toBeGreaterThanOrEqual(990);
    expect(elapsed).toBeLessThan(1500);
  });

  it("does not time out a slow body that started before the timeout", async () => {
    const started = performance.now();
    const r = response(await send({ url: `${target.base}/slow-body` }, { timeoutSeconds: 1 }));
    expect(performance.now() - started).toBeGreaterThan(1500);
    expect(r.status).toBe(200);
    expect(r.body).toBe("part0.part1.part2.part3.part4.");
  });

  it("gives up a body still arriving when the reaper may close the attempt, as unrecordable", async () => {
    const started = performance.now();
    const r = await send({ url: `${target.base}/trickle` }, { timeoutSeconds: 1, reapGraceSeconds: 0.5 });
    const elapsed = performance.now() - started;
    expect(r).toEqual({ kind: "unrecordable" });
    expect(elapsed).toBeGreaterThanOrEqual(1490);
    expect(elapsed).toBeLessThan(1800);
  });

  it("fails as a Decode error when the body breaks after a 200", async () => {
    const url = `${target.base}/broken-body?z=9`;
    const r = await send({ url, method: "PATCH" });
    expect(r).toEqual({ kind: "network", errorMessage: `Decode error (200 PATCH ${url})`, timedOut: false });
    expect(classify(r)).toBe("network_failure");
  });
});

describe("response recording", () => {
  it("keeps the first 10,240 bytes; a character cut at the limit becomes U+FFFD; size counts every byte", async () => {
    const r = response(await send({ url: `${target.base}/multibyte` }));
    expect(r.body).toBe(`${"a".repeat(10_239)}\uFFFD`);
    expect(r.size).toBe(10_239 + 3 + 4);
  });

  it("decodes invalid UTF-8 bytes as U+FFFD", async () => {
    expect(response(await send({ url: `${target.base}/invalid-utf8` })).body).toBe("h\uFFFDi");
  });

  it("stops reading at 10 MB and reports size 10485760", async () => {
    const r = response(await send({ url: `${target.base}/big` }));
    expect(r.size).toBe(10_485_760);
    expect(r.body).toBe("a".repeat(10_240));
  });

  it("does not record a gzip body (zero byte in the first 10 KB)", async () => {
    const r = await send({ url: `${target.base}/gzip`, headers: [["Accept-Encoding", "gzip"]] });
    expect(r).toEqual({ kind: "unrecordable" });
    expect(classify(r)).toBe("unrecordable");
  });

  it("records a body whose first zero byte comes after 10,240 bytes", async () => {
    const r = response(await send({ url: `${target.base}/zero-after-limit` }));
    expect(r.body).toBe("a".repeat(10_240));
    expect(r.size).toBe(10_242);
  });

  it("reports response headers with lowercase names and repeats joined with ', '", async () => {
    const r = response(await send({ url: `${target.base}/headers` }));
    expect(r.headers["x-multi"]).toBe("a, b");
    expect(r.headers["set-cookie"]).toBe("a=1, b=2");
    expect(r.headers["x-camelcase"]).toBe("Value Kept");
    expect(Object.keys(r.headers).every((k) => k === k.toLowerCase())).toBe(true);
  });

  it("records an empty body as '' with size 0", async () => {
    const r = response(await send({ url: `${target.base}/empty` }));
    expect(r).toMatchObject({ status: 200, body: "", size: 0 });
  });

  it("reads a HEAD response as having no body", async () => {
    const r = response(await send({ method: "HEAD", url: `${target.base}/status/200` }));
    expect(r).toMatchObject({ status: 200, body: "", size: 0 });
  });
});

describe("cancellation", () => {
  it("rejects with the signal's reason when the caller aborts", async () => {
    const controller = new AbortController();
    const pending = send({ url: `${target.base}/hang` }, { signal: controller.signal });
    setTimeout(() => controller.abort(new Error("shutting down")), 50);
    await expect(pending).rejects.toThrow("shutting down");
  });
});
