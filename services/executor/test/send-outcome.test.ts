// One attempt against a real target on 127.0.0.1: every outcome with its
// errorMessage, the timeout, what is kept of the response, and cancellation.
import { describe, expect, it } from "vitest";
import { withoutCredentials } from "../src/outcome.js";
import { classify } from "../src/send.js";
import { response, send, target, useTarget } from "./send-support.js";
import { closedPort } from "./target-server.js";

useTarget();

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
      cause: `connect ECONNREFUSED 127.0.0.1:${new URL(url).port}`,
    });
  });

  it("keeps credentials in the target URL out of the error message", async () => {
    const port = await closedPort();
    const r = await send({ url: `http://admin:s3cret@127.0.0.1:${port}/x?y=1` });
    expect(r).toEqual({ kind: "network", errorMessage: `Transport error (GET http://***@127.0.0.1:${port}/x?y=1)`, timedOut: false, cause: `connect ECONNREFUSED 127.0.0.1:${port}` });
    const item = await send({ source: "item", url: "http://tok:en@[::1" });
    expect(item).toMatchObject({ kind: "network", errorMessage: "InvalidUrl error (GET http://***@[::1)" });
    expect(withoutCredentials("https://u@h/p@q")).toBe("https://***@h/p@q");
    expect(withoutCredentials("mailto:someone@example.com")).toBe("mailto:someone@example.com");
  });

  it("fails as a Transport error when DNS fails", async () => {
    const r = await send({ url: "http://nonexistent.invalid/" });
    expect(r).toEqual({ kind: "network", errorMessage: "Transport error (GET http://nonexistent.invalid/)", timedOut: false, cause: "getaddrinfo ENOTFOUND nonexistent.invalid" });
  });

  it("fails as a Transport error when TLS fails", async () => {
    const url = `https://127.0.0.1:${target.port}/`;
    expect(await send({ url })).toEqual({ kind: "network", errorMessage: `Transport error (GET ${url})`, timedOut: false, cause: expect.stringContaining("SSL routines") });
  });

  it.each(["schedule", "item"] as const)("fails as a Transport error for a non-http scheme (%s)", async (source) => {
    for (const url of ["ftp://example.com/file", "mailto:someone@example.com", "file:///etc/passwd"]) {
      const scheme = new URL(url).protocol;
      expect(await send({ source, url })).toEqual({ kind: "network", errorMessage: `Transport error (GET ${url})`, timedOut: false, cause: `the URL's scheme ${scheme} is not http or https` });
    }
  });

  /** A target on a raw socket that writes `answer` once the request has arrived. */
  async function rawTarget(answer: string, run: (base: string) => Promise<void>): Promise<void> {
    const net = await import("node:net");
    const server = net.createServer((socket) => {
      socket.once("data", () => socket.write(answer));
      socket.on("error", () => {});
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      await run(`http://127.0.0.1:${(server.address() as import("node:net").AddressInfo).port}`);
    } finally {
      server.close();
    }
  }

  it("records a whole answer followed by stray bytes in the same packet as that answer, not a Decode error", async () => {
    await rawTarget("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhelloEXTRA", async (base) => {
      expect(await send({ url: `${base}/work` })).toEqual({ kind: "response", status: 200, headers: { "content-length": "5" }, body: "hello", size: 5 });
    });
    // a Content-Length counted in characters: the answer is its first 5 bytes
    await rawTarget("HTTP/1.1 201 Created\r\nContent-Length: 5\r\n\r\ncafé!", async (base) => {
      expect(await send({ url: `${base}/work` })).toMatchObject({ kind: "response", status: 201, body: "café", size: 5 });
    });
  });

  it("records a 101 answer as an HTTP failure at once, not a timeout", async () => {
    await rawTarget("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nX-Why: test\r\n\r\n", async (base) => {
      const started = performance.now();
      const r = response(await send({ url: `${base}/ws` }, { timeoutSeconds: 5 }));
      expect(performance.now() - started).toBeLessThan(1000);
      expect(r).toMatchObject({ status: 101, body: "", size: 0 });
      expect(r.headers).toMatchObject({ upgrade: "websocket", "x-why": "test" });
      expect(classify(r)).toBe("http_failure");
    });
  });

  it("records a 200 to a CONNECT item as the target's answer at once, not a timeout", async () => {
    await rawTarget("HTTP/1.1 200 OK\r\nX-Why: tunnel\r\n\r\n", async (base) => {
      const started = performance.now();
      const r = response(await send({ source: "item", method: "CONNECT", url: `${base}/c` }, { timeoutSeconds: 5 }));
      expect(performance.now() - started).toBeLessThan(1000);
      expect(r).toMatchObject({ status: 200, body: "", size: 0 });
      expect(r.headers).toMatchObject({ "x-why": "tunnel" });
      expect(classify(r)).toBe("success");
    });
  });

  it("records a 2xx whose headers are long (a 17 KB Set-Cookie) as a success; past 256 KiB of headers it is a Transport error", async () => {
    const cookie = `session=${"c".repeat(17_000)}`;
    await rawTarget(`HTTP/1.1 200 OK\r\nSet-Cookie: ${cookie}\r\nContent-Length: 4\r\n\r\ndone`, async (base) => {
      const r = response(await send({ url: `${base}/work` }));
      expect(classify(r)).toBe("success");
      expect(r.headers["set-cookie"]).toBe(cookie);
      expect(r.body).toBe("done");
    });
    await rawTarget(`HTTP/1.1 200 OK\r\nX-Big: ${"b".repeat(300_000)}\r\nContent-Length: 4\r\n\r\ndone`, async (base) => {
      expect(await send({ url: `${base}/work` })).toEqual({ kind: "network", errorMessage: `Transport error (GET ${base}/work)`, timedOut: false, cause: "Parse Error: Header overflow" });
    });
  });

  it("records every header of an answer with thousands of them (Node keeps about the first 1,000 unless told)", async () => {
    const lines = Array.from({ length: 1500 }, (_, i) => `X-H${i}: ${i}\r\n`).join("");
    await rawTarget(`HTTP/1.1 200 OK\r\n${lines}Content-Length: 4\r\n\r\ndone`, async (base) => {
      const r = response(await send({ url: `${base}/work` }));
      expect(Object.keys(r.headers)).toHaveLength(1501);
      expect(r.headers["x-h1499"]).toBe("1499");
      expect(r.headers["content-length"]).toBe("4");
    });
  });

  it("fails as a Transport error when the connection closes before headers", async () => {
    const url = `${target.base}/close-before-headers`;
    expect(await send({ url })).toEqual({ kind: "network", errorMessage: `Transport error (GET ${url})`, timedOut: false, cause: "socket hang up" });
  });

  it("times out while waiting for status and headers, after the timeout and no later than half a second past it", async () => {
    const url = `${target.base}/hang`;
    const started = performance.now();
    const r = await send({ url }, { timeoutSeconds: 1 });
    const elapsed = performance.now() - started;
    expect(r).toEqual({ kind: "network", errorMessage: '{"errorMessage":"Request timed out after 1s"}', timedOut: true, cause: "timed out" });
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
    expect(r).toEqual({ kind: "unrecordable", status: 200 });
    expect(elapsed).toBeGreaterThanOrEqual(1490);
    expect(elapsed).toBeLessThan(1800);
  });

  it("fails as a Decode error when the body breaks after a 200", async () => {
    const url = `${target.base}/broken-body?z=9`;
    const r = await send({ url, method: "PATCH" });
    expect(r).toEqual({ kind: "network", errorMessage: `Decode error (200 PATCH ${url})`, timedOut: false, cause: "The server aborted pending request" });
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
    expect(r).toEqual({ kind: "unrecordable", status: 200 });
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
