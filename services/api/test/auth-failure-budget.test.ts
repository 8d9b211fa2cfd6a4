// The per-address budget of failed authentications: past it, requests with
// credentials from that address are answered 429 unread until its minute
// ends; other addresses, loopback and requests without credentials go on.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AuthFailureBudget, clientBucket, isLoopback } from "../src/auth/failure-budget.js";
import { startApi, type TestApi } from "../../../test/support/api.js";

describe("AuthFailureBudget", () => {
  it("refuses an address past its budget until its minute ends, and never counts loopback", () => {
    let now = 1_000_000;
    const budget = new AuthFailureBudget(3, () => now);
    for (let i = 0; i < 3; i++) {
      expect(budget.retryAfter("203.0.113.7")).toBe(0);
      budget.failed("203.0.113.7");
    }
    expect(budget.retryAfter("203.0.113.7")).toBe(60);
    expect(budget.retryAfter("203.0.113.8")).toBe(0);
    now += 45_500;
    expect(budget.retryAfter("203.0.113.7")).toBe(15);
    now += 14_500;
    expect(budget.retryAfter("203.0.113.7")).toBe(0);
    for (const address of ["127.0.0.1", "::1", "::ffff:127.0.0.5"]) {
      for (let i = 0; i < 10; i++) budget.failed(address);
      expect(budget.retryAfter(address)).toBe(0);
    }
  });

  it("counts a loopback address named by a proxy header when the connection itself came from elsewhere", () => {
    const budget = new AuthFailureBudget(2);
    for (let i = 0; i < 2; i++) budget.failed("127.0.0.9", false);
    expect(budget.retryAfter("127.0.0.9")).toBe(60);
  });

  it("counts an IPv6 client by its /64: moving between its addresses gains no budget", () => {
    const budget = new AuthFailureBudget(3);
    for (const address of ["2001:db8:1:2::1", "2001:db8:1:2::2", "2001:DB8:1:2:ffff::9"]) budget.failed(address);
    expect(budget.retryAfter("2001:db8:1:2::77")).toBe(60);
    expect(budget.retryAfter("2001:db8:1:3::1")).toBe(0);
  });

  it("knows an address's bucket: IPv4 alone, IPv6 by its /64, written any way", () => {
    expect(["203.0.113.7", "::ffff:203.0.113.7"].map(clientBucket)).toEqual(["203.0.113.7", "203.0.113.7"]);
    expect(["2001:db8::1", "2001:0db8:0000:0000:1::", "2001:db8:0:0:ffff:ffff:ffff:ffff", "::ffff:0:1.2.3.4"].map(clientBucket)).toEqual([
      "2001:db8:0:0::/64",
      "2001:db8:0:0::/64",
      "2001:db8:0:0::/64",
      "0:0:0:0::/64",
    ]);
    expect(["fe80::1%eth0", "unknown", ""].map(clientBucket)).toEqual(["fe80:0:0:0::/64", "unknown", ""]);
  });

  it("0 switches it off", () => {
    const budget = new AuthFailureBudget(0);
    for (let i = 0; i < 10; i++) budget.failed("198.51.100.1");
    expect(budget.retryAfter("198.51.100.1")).toBe(0);
  });

  it("knows loopback addresses", () => {
    expect(["127.0.0.1", "127.8.9.1", "::1", "::ffff:127.0.0.1"].every(isLoopback)).toBe(true);
    expect(["10.0.0.1", "::ffff:10.0.0.1", "128.0.0.1", "fe80::1", ""].some(isLoopback)).toBe(false);
  });
});

describe("through the api", () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startApi({ authFailuresPerMinute: 5, trustProxy: "loopback" });
  });
  afterAll(() => api.close());

  const from = (address: string, headers: Record<string, string> = {}) => ({ "X-Forwarded-For": address, ...headers });
  const badKey = "ttr_" + "q".repeat(43);

  it("five unknown keys from one address, then 429 with Retry-After for anything with credentials from it", async () => {
    const address = "203.0.113.20";
    for (let i = 0; i < 5; i++) {
      const res = await api.call("DELETE", "/cancel", from(address, { "ttr-api-key": badKey, "ttr-custom-key": "k" }));
      expect(res.status).toBe(401);
      expect(res.json()).toEqual({ _tag: "Unauthorized", message: "Invalid api key" });
    }
    const refused = await api.call("POST", "/schedule", from(address, { "ttr-api-key": api.apiKey, "ttr-url": "http://127.0.0.1:9/" }));
    expect(refused.status).toBe(429);
    expect(refused.json()).toEqual({ _tag: "TooManyRequests", message: "Too many failed authentications from this address, try again later" });
    const wait = Number(refused.headers["retry-after"]);
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(60);
    // A large body is refused before it is read or parsed.
    const big = await api.call("POST", "/declare", from(address, { Authorization: `Bearer ${badKey}`, "Content-Type": "application/json" }), "x".repeat(5 * 1024 * 1024));
    expect(big.status).toBe(429);
    // Without credentials the address is not refused, and the probes answer.
    expect((await api.call("GET", "/triggers", from(address))).status).toBe(401);
    expect((await api.call("GET", "/healthz", from(address))).status).toBe(200);
    // Paths that take no credentials answer as always, credentials or not: the document, the reference, the UI, unknown paths.
    const withKey = from(address, { "ttr-api-key": api.apiKey });
    expect((await api.call("GET", "/openapi.json", withKey)).status).toBe(200);
    expect((await api.call("GET", "/reference", withKey)).status).toBe(200);
    expect((await api.call("GET", "/dashboard/", withKey)).status).toBe(200);
    expect((await api.call("GET", "/no-such-path", withKey)).status).toBe(404);
    // Methods and paths below the guarded ones that no operation serves: 404 with no body, as always.
    for (const [method, path] of [["POST", "/cancel"], ["GET", "/declare"], ["GET", "/auth/login"], ["PATCH", "/tag-policies"], ["GET", "/schedule/x"], ["GET", "/triggers/a/b/c"], ["GET", "/dead-letters"]] as const) {
      const res = await api.call(method, path, withKey);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.text, `${method} ${path}`).toBe("");
    }
    // and every operation that does take them is guarded: each one the OpenAPI document lists with credentials
    const doc = (await api.call("GET", "/openapi.json")).json() as { paths: Record<string, Record<string, { security?: unknown[] }>> };
    const id = "00000000-0000-4000-8000-000000000000";
    const guarded = Object.entries(doc.paths).flatMap(([path, operations]) =>
      Object.entries(operations).flatMap(([method, op]) => ((op.security?.length ?? 0) > 0 || path === "/auth/login" ? [[method.toUpperCase(), path.replace("{id}", id)] as const] : [])),
    );
    expect(guarded.length).toBeGreaterThan(25);
    for (const [method, path] of guarded) expect((await api.call(method, path, withKey)).status, `${method} ${path}`).toBe(429);
    // /schedule takes any method
    expect((await api.call("PROPFIND", "/schedule", withKey)).status).toBe(429);
  });

  it("another address, and a valid key from it, are not affected", async () => {
    for (let i = 0; i < 5; i++) await api.call("GET", "/project", from("203.0.113.30", { "ttr-api-key": badKey }));
    const res = await api.call("GET", "/project", from("203.0.113.31", { "ttr-api-key": api.apiKey }));
    expect(res.status).toBe(200);
  });

  it("valid requests never use the budget, and loopback is never counted", async () => {
    for (let i = 0; i < 8; i++) expect((await api.call("GET", "/project", from("203.0.113.40", { "ttr-api-key": api.apiKey }))).status).toBe(200);
    for (let i = 0; i < 8; i++) expect((await api.call("GET", "/project", { "ttr-api-key": badKey })).status).toBe(401);
    expect((await api.call("GET", "/project", { "ttr-api-key": api.apiKey })).status).toBe(200);
  });
});
