// /tag-policies: every row of the check order in docs/api/tag-policies.md and
// every validation message, and that a refused call writes nothing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type TestApi } from "../../../test/support/api.js";
import type { Reply } from "../../../test/support/http.js";
import { triggerTables } from "../../../test/support/snapshot.js";

let api: TestApi;
let stored: { id: string; tag: string };
beforeAll(async () => {
  api = await startApi();
  const res = await post({ tag: "stored", maxConcurrent: 2, retryStrategy: "fixed", retryInitialDelaySeconds: 5 });
  stored = res.json().tagPolicy;
});
afterAll(() => api.close());

const MISSING = "00000000-0000-4000-8000-000000000000";
const key = () => ({ "ttr-api-key": api.apiKey });
const json = { "Content-Type": "application/json" };

function post(body: unknown, headers: Record<string, string | undefined> = { ...key(), ...json }) {
  return api.call("POST", "/tag-policies", headers, typeof body === "string" ? body : JSON.stringify(body));
}
function put(id: string, body: unknown, headers: Record<string, string | undefined> = { ...key(), ...json }) {
  return api.call("PUT", `/tag-policies/${id}`, headers, body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body));
}

/** tag_policies and the trigger tables, to prove a refused call wrote nothing. */
async function tables(): Promise<string> {
  const rows = await api.db.$queryRawUnsafe<Array<{ digest: string | null }>>(
    `SELECT md5(string_agg(p::text, ',' ORDER BY p.id)) AS digest FROM tag_policies p`,
  );
  return `tag_policies:${rows[0]!.digest ?? "-"} ${await triggerTables(api.db)}`;
}

async function refused(call: () => Promise<Reply>): Promise<Reply> {
  const before = await tables();
  const res = await call();
  expect(await tables()).toBe(before);
  return res;
}

async function emptyBadRequest(call: () => Promise<Reply>): Promise<void> {
  const res = await refused(call);
  expect(res.status).toBe(400);
  expect(res.body.length).toBe(0);
  expect(res.headers["content-type"]).toBeUndefined();
}

async function error(call: () => Promise<Reply>, status: number, tag: string, message: string): Promise<void> {
  const res = await refused(call);
  expect(res.status).toBe(status);
  expect(res.headers["content-type"]).toMatch(/^application\/json/);
  expect(res.json()).toEqual({ _tag: tag, message });
}

const badRequest = (call: () => Promise<Reply>, message: string) => error(call, 400, "BadRequest", message);

describe("415 Unsupported content-type, before everything else", () => {
  it("POST and PUT with another Content-Type, even with a bad body, no key and an unknown ID", async () => {
    for (const [type, call] of [
      ["text/plain", (h: Record<string, string>) => post("not json", h)],
      ["application/x-www-form-urlencoded", (h: Record<string, string>) => post({ tag: "x" }, h)],
      ["application/jsonp", (h: Record<string, string>) => put(MISSING, "{", h)],
      ["text/json; charset=utf-8", (h: Record<string, string>) => put("not-a-uuid", { maxConcurrent: 0 }, h)],
    ] as const) {
      const res = await refused(() => call({ "Content-Type": type }));
      expect(res.status).toBe(415);
      expect(res.headers["content-type"]).toMatch(/^text\/plain/);
      expect(res.text).toBe(`Unsupported content-type: ${type}`);
    }
  });

  it("accepts parameters and any letter case, and reads a missing Content-Type as JSON", async () => {
    for (const type of ["application/json; charset=utf-8", "Application/JSON", "APPLICATION/JSON ; charset=UTF-8"]) {
      expect((await post({ tag: "ct-ok", maxConcurrent: 1 }, { ...key(), "Content-Type": type })).status).toBe(200);
    }
    expect((await post({ tag: "ct-none", maxConcurrent: 1 }, key())).status).toBe(200);
    expect((await put(stored.id, {}, key())).status).toBe(200);
  });

  it("GET and DELETE do not look at the Content-Type", async () => {
    expect((await api.call("GET", "/tag-policies", { ...key(), "Content-Type": "text/plain" })).status).toBe(200);
    const res = await api.call("DELETE", `/tag-policies/${MISSING}`, { ...key(), "Content-Type": "text/plain" });
    expect(res.status).toBe(404);
  });
});

describe("400 with an empty body: the body's format, before the key", () => {
  const noKey = json;
  const badKey = { "ttr-api-key": "ttr_wrong", ...json };

  it.each([
    ["invalid JSON", "{"],
    ["an empty body", ""],
    ["trailing garbage", '{"tag":"a","maxConcurrent":1} x'],
    ["an array", "[]"],
    ["a string", '"tag"'],
    ["null", "null"],
    ["a number", "5"],
    ["no tag", "{}"],
    ["no tag but limits", '{"maxConcurrent":1}'],
    ["tag null", '{"tag":null,"maxConcurrent":1}'],
    ["tag a number", '{"tag":5,"maxConcurrent":1}'],
    ["maxConcurrent a string", '{"tag":"a","maxConcurrent":"5"}'],
    ["requestTimeoutSeconds a string", '{"tag":"a","requestTimeoutSeconds":"30"}'],
    ["retryJitter a string", '{"tag":"a","maxConcurrent":1,"retryJitter":"true"}'],
    ["retryJitter null", '{"tag":"a","maxConcurrent":1,"retryJitter":null}'],
    ["unknown retryStrategy", '{"tag":"a","retryStrategy":"linear","retryInitialDelaySeconds":1}'],
    ["retryStrategy null", '{"tag":"a","maxConcurrent":1,"retryStrategy":null}'],
    ["unknown retryOn", '{"tag":"a","maxConcurrent":1,"retryOn":"5xx"}'],
    ["retryOn null", '{"tag":"a","maxConcurrent":1,"retryOn":null}'],
    ["throughput an array", '{"tag":"a","throughput":[1]}'],
    ["throughput a string", '{"tag":"a","throughput":"1s"}'],
    ["week window", '{"tag":"a","throughput":{"1w":1}}'],
    ["leading zero window", '{"tag":"a","throughput":{"01m":1}}'],
    ["zero window", '{"tag":"a","throughput":{"0s":1}}'],
    ["upper-case unit", '{"tag":"a","throughput":{"1H":1}}'],
    ["a malformed window among nine", `{"tag":"a","throughput":{${Array.from({ length: 8 }, (_, i) => `"${i + 1}s":1`).join(",")},"1x":1}}`],
    ["a rate as a string", '{"tag":"a","throughput":{"1s":"1"}}'],
    ["a rate null", '{"tag":"a","throughput":{"1s":null}}'],
    ["a __proto__ window", '{"tag":"a","throughput":{"__proto__":1}}'],
  ])("POST with %s", async (_what, body) => {
    await emptyBadRequest(() => post(body, noKey));
    await emptyBadRequest(() => post(body, badKey));
    await emptyBadRequest(() => post(body, { ...key(), ...json }));
  });

  it.each([
    ["invalid JSON", "{"],
    ["a missing body", undefined],
    ["an empty body", ""],
    ["an array", "[]"],
    ["null", "null"],
    ["tag null", '{"tag":null}'],
    ["retryStrategy null", '{"retryStrategy":null}'],
    ["retryJitter null", '{"retryJitter":null}'],
    ["retryOn null", '{"retryOn":null}'],
    ["maxConcurrent a string", '{"maxConcurrent":"5"}'],
    ["retryJitter a string", '{"retryJitter":"true"}'],
    ["a malformed window", '{"throughput":{"1.5h":1}}'],
  ])("PUT with %s, even for an unknown ID", async (_what, body) => {
    await emptyBadRequest(() => put(stored.id, body, noKey));
    await emptyBadRequest(() => put(MISSING, body, badKey));
    await emptyBadRequest(() => put("not-a-uuid", body));
    await emptyBadRequest(() => put(stored.id, body));
  });

  it("ignores unknown fields", async () => {
    const res = await post({ tag: "unknown-fields", maxConcurrent: 1, colour: "blue", id: MISSING, createdAt: 5 });
    expect(res.status).toBe(200);
    expect(res.json().tagPolicy.id).not.toBe(MISSING);
    expect((await put(stored.id, { extra: { nested: [1] } })).status).toBe(200);
  });
});

describe("401, after the format and before 404 and validation", () => {
  const invalid = ["Unauthorized", "Invalid api key"] as const;
  const missing = ["Unauthorized", "Unauthorized"] as const;

  it("Invalid api key for an unknown key, in ttr-api-key or as Bearer", async () => {
    const bad = { maxConcurrent: 0 };
    await error(() => post({ tag: "BAD", ...bad }, { "ttr-api-key": "ttr_nope", ...json }), 401, ...invalid);
    await error(() => post({ tag: "BAD" }, { Authorization: "Bearer ttr_nope", ...json }), 401, ...invalid);
    await error(() => put(MISSING, bad, { "ttr-api-key": "ttr_nope", ...json }), 401, ...invalid);
    await error(() => api.call("GET", "/tag-policies", { Authorization: "Bearer ttr_nope" }), 401, ...invalid);
    await error(() => api.call("DELETE", `/tag-policies/${stored.id}`, { "ttr-api-key": "ttr_nope" }), 401, ...invalid);
  });

  it("Unauthorized without a key, with an empty key or a non-Bearer Authorization", async () => {
    for (const headers of [{}, { "ttr-api-key": "" }, { Authorization: `Basic ${Buffer.from("a:b").toString("base64")}` }, { Authorization: api.apiKey }, { Authorization: "Bearer" }]) {
      await error(() => post({ tag: "x", maxConcurrent: 1 }, { ...headers, ...json }), 401, ...missing);
      await error(() => put(stored.id, {}, { ...headers, ...json }), 401, ...missing);
      await error(() => api.call("GET", "/tag-policies", headers), 401, ...missing);
      await error(() => api.call("DELETE", `/tag-policies/${stored.id}`, headers), 401, ...missing);
    }
  });
});

describe("404 Tag policy not found, after the key and before body values", () => {
  const notFound = ["NotFound", "Tag policy not found"] as const;

  it("PUT with an unknown or malformed ID, even with values that would fail", async () => {
    for (const id of [MISSING, "not-a-uuid", "123", `${MISSING}0`]) {
      await error(() => put(id, { tag: "BAD", maxConcurrent: 0, retryStrategy: "fixed" }), 404, ...notFound);
      await error(() => put(id, {}), 404, ...notFound);
    }
  });

  it("DELETE with an unknown or malformed ID", async () => {
    for (const id of [MISSING, "not-a-uuid"]) await error(() => api.call("DELETE", `/tag-policies/${id}`, key()), 404, ...notFound);
  });
});

describe("validation messages (docs/api/tag-policies.md), exact texts", () => {
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ["1 tag with upper case", { tag: "Upper", maxConcurrent: 1 }, "Invalid tag (only a-z 0-9 _ - allowed, max 50 chars)"],
    ["1 tag empty", { tag: "", maxConcurrent: 1 }, "Invalid tag (only a-z 0-9 _ - allowed, max 50 chars)"],
    ["1 tag of 51", { tag: "a".repeat(51), maxConcurrent: 1 }, "Invalid tag (only a-z 0-9 _ - allowed, max 50 chars)"],
    ["1 tag with a space", { tag: "a b", maxConcurrent: 1 }, "Invalid tag (only a-z 0-9 _ - allowed, max 50 chars)"],
    ["1 before 2", { tag: "X" }, "Invalid tag (only a-z 0-9 _ - allowed, max 50 chars)"],
    ["2 nothing", { tag: "a" }, "At least one of throughput, concurrency, timeout, or retry strategy must be specified"],
    ["2 only what does not count", { tag: "a", throughput: {}, retryStrategy: "none", retryMaxAttempts: 2, retryJitter: true, retryOn: "non_2xx", maxConcurrent: null }, "At least one of throughput, concurrency, timeout, or retry strategy must be specified"],
    ["3 timeout 0", { tag: "a", requestTimeoutSeconds: 0 }, "requestTimeoutSeconds must be between 1 and 3600"],
    ["3 timeout 3601", { tag: "a", requestTimeoutSeconds: 3601 }, "requestTimeoutSeconds must be between 1 and 3600"],
    ["3 timeout 3600.5, checked as sent", { tag: "a", requestTimeoutSeconds: 3600.5 }, "requestTimeoutSeconds must be between 1 and 3600"],
    ["3 before 4", { tag: "a", requestTimeoutSeconds: 0, maxConcurrent: 0 }, "requestTimeoutSeconds must be between 1 and 3600"],
    ["4 maxConcurrent 0", { tag: "a", maxConcurrent: 0 }, "maxConcurrent must be ≥ 1"],
    ["4 maxConcurrent 0.5", { tag: "a", maxConcurrent: 0.5 }, "maxConcurrent must be ≥ 1"],
    ["4 before 5", { tag: "a", maxConcurrent: -1, throughput: Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`${i + 1}h`, 1])) }, "maxConcurrent must be ≥ 1"],
    ["5 nine windows", { tag: "a", throughput: Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`${i + 1}h`, -1])) }, "At most 8 throughput windows per policy"],
    ["6 negative rate", { tag: "a", throughput: { "1m": 1, "10s": -1 } }, "Throughput rate for '10s' must be a finite number ≥ 0"],
    ["6 before 7", { tag: "a", throughput: { "31d": 1, "1s": -0.5 } }, "Throughput rate for '1s' must be a finite number ≥ 0"],
    ["7 31d at 1", { tag: "a", throughput: { "31d": 1 } }, "Effective window for '31d' at rate 1 exceeds the 30-day maximum"],
    ["7 1d at 0.03", { tag: "a", throughput: { "1d": 0.03 } }, "Effective window for '1d' at rate 0.03 exceeds the 30-day maximum (rates below 1 stretch the window by 1/rate)"],
    ["7 45d at 0", { tag: "a", throughput: { "45d": 0 } }, "Effective window for '45d' at rate 0 exceeds the 30-day maximum"],
    ["7 before 8", { tag: "a", throughput: { "744h": 2 }, retryMaxAttempts: 0 }, "Effective window for '744h' at rate 2 exceeds the 30-day maximum"],
    ["8 attempts 0", { tag: "a", maxConcurrent: 1, retryMaxAttempts: 0 }, "retryMaxAttempts must be ≥ 1 (or null for unlimited)"],
    ["8 attempts 0.5", { tag: "a", retryStrategy: "fixed", retryInitialDelaySeconds: 1, retryMaxAttempts: 0.5 }, "retryMaxAttempts must be ≥ 1 (or null for unlimited)"],
    ["8 before 9", { tag: "a", retryStrategy: "fixed", retryMaxAttempts: -1 }, "retryMaxAttempts must be ≥ 1 (or null for unlimited)"],
    ["9 fixed without delay", { tag: "a", retryStrategy: "fixed" }, "retryInitialDelaySeconds is required (≥0) when retryStrategy is 'fixed' or 'exponential'"],
    ["9 exponential with null delay", { tag: "a", retryStrategy: "exponential", retryInitialDelaySeconds: null }, "retryInitialDelaySeconds is required (≥0) when retryStrategy is 'fixed' or 'exponential'"],
    ["9 negative delay", { tag: "a", retryStrategy: "exponential", retryInitialDelaySeconds: -1 }, "retryInitialDelaySeconds is required (≥0) when retryStrategy is 'fixed' or 'exponential'"],
    ["9 before 10", { tag: "a", retryStrategy: "fixed", retryMaxDelaySeconds: -1 }, "retryInitialDelaySeconds is required (≥0) when retryStrategy is 'fixed' or 'exponential'"],
    ["10 negative max delay", { tag: "a", retryStrategy: "exponential", retryInitialDelaySeconds: 1, retryMaxDelaySeconds: -1 }, "retryMaxDelaySeconds must be ≥ 0"],
    ["10 before 11", { tag: "a", retryStrategy: "fixed", retryInitialDelaySeconds: 86401, retryMaxDelaySeconds: -5 }, "retryMaxDelaySeconds must be ≥ 0"],
    ["11 initial delay over a day", { tag: "a", retryStrategy: "fixed", retryInitialDelaySeconds: 86401 }, "retryInitialDelaySeconds must be ≤ 86400 (1 day)"],
    ["11 86400.5, checked as sent", { tag: "a", retryStrategy: "fixed", retryInitialDelaySeconds: 86400.5 }, "retryInitialDelaySeconds must be ≤ 86400 (1 day)"],
    ["11 before 12", { tag: "a", retryStrategy: "fixed", retryInitialDelaySeconds: 90000, retryMaxDelaySeconds: 90000 }, "retryInitialDelaySeconds must be ≤ 86400 (1 day)"],
    ["12 max delay over a day", { tag: "a", retryStrategy: "exponential", retryInitialDelaySeconds: 1, retryMaxDelaySeconds: 86401 }, "retryMaxDelaySeconds must be ≤ 86400 (1 day)"],
  ];

  it.each(cases)("POST: %s", async (_what, body, message) => {
    await badRequest(() => post(body), message);
  });

  it("non-finite JSON numbers (1e400 parses as Infinity) get the range messages", async () => {
    await badRequest(() => post('{"tag":"a","throughput":{"1m":1e400}}'), "Throughput rate for '1m' must be a finite number ≥ 0");
    await badRequest(() => post('{"tag":"a","throughput":{"1m":-1e400}}'), "Throughput rate for '1m' must be a finite number ≥ 0");
    await badRequest(() => post('{"tag":"a","requestTimeoutSeconds":1e400}'), "requestTimeoutSeconds must be between 1 and 3600");
    await badRequest(() => post('{"tag":"a","maxConcurrent":-1e400}'), "maxConcurrent must be ≥ 1");
    await badRequest(() => post('{"tag":"a","retryStrategy":"fixed","retryInitialDelaySeconds":1e400}'), "retryInitialDelaySeconds must be ≤ 86400 (1 day)");
  });

  it("PUT: the same messages but 2, on sent values and on the retry result", async () => {
    await badRequest(() => put(stored.id, { tag: "No" }), "Invalid tag (only a-z 0-9 _ - allowed, max 50 chars)");
    await badRequest(() => put(stored.id, { requestTimeoutSeconds: 0.5 }), "requestTimeoutSeconds must be between 1 and 3600");
    await badRequest(() => put(stored.id, { maxConcurrent: 0.5 }), "maxConcurrent must be ≥ 1");
    await badRequest(() => put(stored.id, { throughput: Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`${i + 1}d`, 1])) }), "At most 8 throughput windows per policy");
    await badRequest(() => put(stored.id, { throughput: { "1s": -2 } }), "Throughput rate for '1s' must be a finite number ≥ 0");
    await badRequest(() => put(stored.id, { throughput: { "1d": 0.03 } }), "Effective window for '1d' at rate 0.03 exceeds the 30-day maximum (rates below 1 stretch the window by 1/rate)");
    await badRequest(() => put(stored.id, { retryMaxAttempts: 0 }), "retryMaxAttempts must be ≥ 1 (or null for unlimited)");
    // stored: fixed with a 5 s delay, which cannot be cleared while fixed
    await badRequest(() => put(stored.id, { retryInitialDelaySeconds: null }), "retryInitialDelaySeconds is required (≥0) when retryStrategy is 'fixed' or 'exponential'");
    await badRequest(() => put(stored.id, { retryStrategy: "exponential", retryInitialDelaySeconds: null }), "retryInitialDelaySeconds is required (≥0) when retryStrategy is 'fixed' or 'exponential'");
    await badRequest(() => put(stored.id, { retryMaxDelaySeconds: -1 }), "retryMaxDelaySeconds must be ≥ 0");
    await badRequest(() => put(stored.id, { retryInitialDelaySeconds: 86401 }), "retryInitialDelaySeconds must be ≤ 86400 (1 day)");
    await badRequest(() => put(stored.id, { retryMaxDelaySeconds: 86401 }), "retryMaxDelaySeconds must be ≤ 86400 (1 day)");
    // a PUT that clears everything is fine: no minimum content
    const cleared = await put(stored.id, { maxConcurrent: null, retryStrategy: "none" });
    expect(cleared.status).toBe(200);
    // switching to fixed needs a delay sent or stored; the stored 5 s still counts
    expect((await put(stored.id, { retryStrategy: "fixed" })).status).toBe(200);
    expect((await put(stored.id, { retryStrategy: "none", retryInitialDelaySeconds: null })).status).toBe(200);
    await badRequest(() => put(stored.id, { retryStrategy: "fixed" }), "retryInitialDelaySeconds is required (≥0) when retryStrategy is 'fixed' or 'exponential'");
    expect((await put(stored.id, { retryStrategy: "fixed", retryInitialDelaySeconds: 0 })).json().tagPolicy).toMatchObject({ retryStrategy: "fixed", retryInitialDelaySeconds: 0 });
  });

  it("413 past 1 MiB (docs/api/README.md)", async () => {
    const big = JSON.stringify({ tag: "big", maxConcurrent: 1, pad: "x".repeat(1024 * 1024) });
    const res = await refused(() => post(big));
    expect(res.status).toBe(413);
    expect(res.json()._tag).toBe("PayloadTooLarge");
  });
});
