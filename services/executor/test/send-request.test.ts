// One attempt against a real target on 127.0.0.1: what arrives on the wire,
// for a /schedule trigger and for a /declare or /bulk item.
import { Options } from "got";
import { describe, expect, it, vi } from "vitest";
import { classify, type HeaderPairs } from "../src/send.js";
import { B3, header, only, send, target, TRACEPARENT, useTarget } from "./send-support.js";

useTarget();

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

  it("skips got's copy of Node's request options, which nothing reads", async () => {
    const built = vi.spyOn(Options.prototype, "createNativeRequestOptions");
    try {
      const r = await send({ method: "POST", body: new TextEncoder().encode("x") });
      expect(classify(r)).toBe("success");
      expect(only().body.toString()).toBe("x");
      expect(built).not.toHaveBeenCalled();
    } finally {
      built.mockRestore();
    }
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

  it("sends nothing for an empty method (an item's method is not validated; Node would send GET): Transport error", async () => {
    const r = await send({ method: "" });
    expect(r).toEqual({ kind: "network", errorMessage: `Transport error ( ${target.base}/echo)`, timedOut: false, cause: "the method is empty" });
    expect(target.received).toEqual([]);
  });

  it("answers Transport error for an unparsable stored URL", async () => {
    const r = await send({ url: "not a url" });
    expect(r).toEqual({ kind: "network", errorMessage: "Transport error (GET not a url)", timedOut: false, cause: "the URL does not parse" });
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
    expect(r).toEqual({ kind: "network", errorMessage: `Transport error (POST ${url})`, timedOut: false, cause: `an item may not send the header ${name}: ${value}` });
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
      cause: expect.stringContaining(JSON.stringify(name)),
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(target.received).toHaveLength(0);
  });

  it("answers InvalidUrl error for a URL that does not parse", async () => {
    const r = await send({ source: "item", method: "DELETE", url: "http://exa mple.com/x?y" });
    expect(r).toEqual({ kind: "network", errorMessage: "InvalidUrl error (DELETE http://exa mple.com/x?y)", timedOut: false, cause: "the URL does not parse" });
  });
});
