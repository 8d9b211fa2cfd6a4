// Every row of the check order in docs/api/declare-and-bulk.md, with authentication
// (docs/api/README.md), the Content-Type rule, the body limit (docs/api/README.md)
// and that no quota is used (never 402): status, _tag, exact message or
// empty body, and that a rejected call wrote nothing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey, createProject, revokeApiKey } from "@ttr/db";
import { startApi, type TestApi } from "../../../test/support/api.js";
import { signIn } from "../../../test/support/session.js";
import { expectNoWrites } from "../../../test/support/snapshot.js";
import { expectError, inHours, ok, post } from "./declare-support.js";

let api: TestApi;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

const valid = () => ({ tag: "checks", items: [{ url: "http://127.0.0.1:9/a", customKey: "a", scheduledAt: inHours(1) }] });

/** Sends and asserts the error and that no trigger, generator or execution changed. */
async function rejected(body: unknown, headers: Record<string, string>, status: number, tag: string | null, message?: string) {
  const res = await expectNoWrites(api.db, () => post(api, "/declare", body, headers));
  expectError(res, status, tag, message);
  return res;
}
const bad = (body: unknown, headers: Record<string, string> = {}) => rejected(body, headers, 400, null);

describe("415 Unsupported content-type, before everything else", () => {
  it("answers plain text naming the type, even with a bad body and a bad key", async () => {
    for (const type of ["text/plain", "application/x-www-form-urlencoded", "application/jsonx", "multipart/form-data; boundary=x"]) {
      const res = await expectNoWrites(api.db, () => post(api, "/declare", "{not json", { "Content-Type": type, "ttr-api-key": "wrong" }));
      expect(res.status).toBe(415);
      expect(res.headers["content-type"]).toMatch(/^text\/plain/);
      expect(res.text).toBe(`Unsupported content-type: ${type}`);
    }
  });

  it("accepts parameters and any letter case, and reads a missing Content-Type as JSON", async () => {
    for (const type of ["Application/JSON", "application/json; charset=utf-8", "APPLICATION/JSON;charset=UTF-8", "", " "]) {
      await ok(post(api, "/declare", valid(), { "Content-Type": type }));
    }
    const res = await api.call("POST", "/declare", { "ttr-api-key": api.apiKey }, JSON.stringify(valid()));
    expect(res.status).toBe(200);
  });
});

describe("400 with an empty body: the body's format, checked before the key", () => {
  it("invalid JSON, an empty body, or not an object", async () => {
    for (const body of ["{", "", "[]", '"text"', "null", "42"]) await bad(body, { "ttr-api-key": "wrong" });
  });

  it("tag or items missing or of the wrong type", async () => {
    await bad({ items: [] });
    await bad({ tag: "t" });
    await bad({ tag: 1, items: [] });
    await bad({ tag: null, items: [] });
    await bad({ tag: "t", items: {} });
    await bad({ tag: "t", items: null });
    await bad({ tag: "t", items: [], runMissed: "true" });
    await bad({ tag: "t", items: [], runMissed: null });
  });

  it("an item that is not an object, or without a string url", async () => {
    for (const entry of [null, "http://x", 1, [], {}, { url: null }, { url: 5 }, { customKey: "a" }]) {
      await bad({ tag: "t", items: [entry] }, { "ttr-api-key": "wrong" });
    }
  });

  it("a null or a wrong type in any optional item field", async () => {
    const base = { url: "http://x/" };
    for (const field of ["scheduledAt", "customKey", "method", "headers", "title", "tags"]) await bad({ tag: "t", items: [{ ...base, [field]: null }] });
    await bad({ tag: "t", items: [{ ...base, scheduledAt: 1 }] });
    await bad({ tag: "t", items: [{ ...base, customKey: 1 }] });
    await bad({ tag: "t", items: [{ ...base, method: true }] });
    await bad({ tag: "t", items: [{ ...base, headers: [] }] });
    await bad({ tag: "t", items: [{ ...base, headers: { a: 1 } }] });
    await bad({ tag: "t", items: [{ ...base, headers: { a: null } }] });
    await bad({ tag: "t", items: [{ ...base, title: 3 }] });
    await bad({ tag: "t", items: [{ ...base, tags: "a,b" }] });
    await bad({ tag: "t", items: [{ ...base, tags: ["a", null] }] });
  });

  it("but a null body, unknown fields and unchecked formats are accepted (item rules 1, 2)", async () => {
    const body = await ok(
      post(api, "/declare", {
        tag: "Not A Policy Tag!",
        extra: { anything: true },
        items: [{ url: "not a url", body: null, unknown: null, tags: Array.from({ length: 12 }, (_, i) => `T${i}`), customKey: "" }],
      }),
    );
    expect(body.summary.added).toBe(1);
  });
});

describe("401, after the body's format", () => {
  it("Invalid api key for an unknown key, by header or Bearer", async () => {
    await rejected(valid(), { "ttr-api-key": "ttr_unknown" }, 401, "Unauthorized", "Invalid api key");
    await rejected(valid(), { "ttr-api-key": "", Authorization: "Bearer ttr_unknown" }, 401, "Unauthorized", "Invalid api key");
  });

  it("Invalid api key for a revoked key", async () => {
    const { apiKeyId, apiKey } = await createApiKey(api.db, api.projectId);
    await ok(post(api, "/declare", valid(), { "ttr-api-key": apiKey }));
    await revokeApiKey(api.db, apiKeyId);
    await rejected(valid(), { "ttr-api-key": apiKey }, 401, "Unauthorized", "Invalid api key");
  });

  it("only ttr-api-key is checked when both are sent", async () => {
    await rejected(valid(), { "ttr-api-key": "ttr_unknown", Authorization: `Bearer ${api.apiKey}` }, 401, "Unauthorized", "Invalid api key");
    await ok(post(api, "/declare", valid(), { Authorization: "Bearer ttr_unknown" }));
  });

  it("Unauthorized when no usable credential is sent (missing, empty, Basic, bare key)", async () => {
    const noKey = { "ttr-api-key": "" };
    await rejected(valid(), noKey, 401, "Unauthorized", "Unauthorized");
    await rejected(valid(), { ...noKey, Authorization: `Basic ${Buffer.from("a:b").toString("base64")}` }, 401, "Unauthorized", "Unauthorized");
    await rejected(valid(), { ...noKey, Authorization: "Bearer" }, 401, "Unauthorized", "Unauthorized");
    await rejected(valid(), { ...noKey, Authorization: api.apiKey }, 401, "Unauthorized", "Unauthorized");
    const res = await api.call("POST", "/declare", { "Content-Type": "application/json" }, JSON.stringify(valid()));
    expectError(res, 401, "Unauthorized", "Unauthorized");
  });

  it("accepts Authorization: Bearer and a dashboard session", async () => {
    await ok(post(api, "/declare", valid(), { "ttr-api-key": "", Authorization: `Bearer ${api.apiKey}` }));
    const session = await signIn(api);
    const res = await session.call("POST", "/declare", {}, valid());
    expect(res.status).toBe(200);
    expect(res.json().tag).toBe("checks");
  });

  it("wins over every value check", async () => {
    const body = { tag: "t", items: [{ url: "x", customKey: "a" }, { url: "y", customKey: "a", scheduledAt: "garbage" }] };
    await rejected(body, { "ttr-api-key": "ttr_unknown" }, 401, "Unauthorized", "Invalid api key");
  });
});

describe("value checks, in order", () => {
  const msg = (body: unknown, message: string) => rejected(body, {}, 400, "BadRequest", message);

  it("Duplicate customKey in items, over the whole list before any item's own checks", async () => {
    await msg(
      { tag: "t", items: [{ url: "x", customKey: "b", scheduledAt: "garbage" }, { url: "x", customKey: "a" }, { url: "y", customKey: "a" }] },
      "Duplicate customKey in items: a",
    );
    // keyless items may repeat (rule 6)
    await ok(post(api, "/declare", { tag: "dup-ok", items: [{ url: "x" }, { url: "x" }] }));
  });

  it("Item <key>: duplicate tag, checked before the item's scheduledAt", async () => {
    await msg({ tag: "t", items: [{ url: "x", customKey: "k", tags: ["a", "b", "a"], scheduledAt: "garbage" }] }, 'Item k: duplicate tag "a" in tags');
    await msg({ tag: "t", items: [{ url: "x", tags: ["t", "t"] }] }, 'Item (no customKey): duplicate tag "t" in tags');
  });

  it("Tag too long over 500 characters (tags are indexed): the declared tag before the items, an item's after its duplicate tags; 500 are stored", async () => {
    const long = "é".repeat(501);
    await msg({ tag: long, items: [{ url: "x", customKey: "k", tags: ["a", "a"] }] }, `Tag too long (max 500 chars): ${long}`);
    await msg({ tag: "t", items: [{ url: "x", customKey: "k", tags: [long], scheduledAt: "garbage" }] }, `Item k: Tag too long (max 500 chars): ${long}`);
    await msg({ tag: "t", items: [{ url: "x", customKey: "k", tags: ["a", long, "a"] }] }, 'Item k: duplicate tag "a" in tags');
    const cron = await post(api, "/bulk", { upserts: [{ url: "x", customKey: "c", scheduledAt: "cron(0 * * * *)", tags: [long] }] });
    expect([cron.status, cron.json().message]).toEqual([400, `Upsert c: Tag too long (max 500 chars): ${long}`]);
    // the longest tag, of the widest characters, is indexed on every table that holds tags
    const widest = "😀".repeat(500);
    await ok(post(api, "/declare", { tag: widest, items: [{ url: "x", customKey: "w", tags: ["x".repeat(500)] }, { url: "x", customKey: "g", scheduledAt: "cron(0 * * * *)" }] }));
  });

  it("Item <key>: each /schedule date message", async () => {
    const cases: Array<[string, string]> = [
      ["garbage", "Invalid date: garbage"],
      ["", "Invalid date: "],
      ["now | multiply 2", "Unknown pipe operation: multiply 2"],
      ["now | add 5y", "Invalid duration: 5y"],
      ["2030-02-30T00:00:00Z", "Invalid date: 2030-02-30T00:00:00Z"],
    ];
    for (const [value, error] of cases) {
      await msg({ tag: "t", items: [{ url: "x", customKey: "k", scheduledAt: value }] }, `Item k: ${error}`);
      await msg({ tag: "t", items: [{ url: "x", scheduledAt: value }] }, `Item (no customKey): ${error}`);
    }
    const res = await expectNoWrites(api.db, () => post(api, "/declare", { tag: "t", items: [{ url: "x", customKey: "c", scheduledAt: "cron(61 * * * *)" }] }));
    expect(res.status).toBe(400);
    expect(res.json().message).toMatch(/^Item c: Invalid cron expression: /);
  });

  it("Item <key>: Title too long (docs/api/declare-and-bulk.md), after the item's scheduledAt", async () => {
    await ok(post(api, "/declare", { tag: "titles", items: [{ url: "x", customKey: "ok", title: "é".repeat(200) }] }));
    await msg({ tag: "t", items: [{ url: "x", customKey: "k", title: "x".repeat(201) }] }, "Item k: Title too long (max 200 chars)");
    await msg({ tag: "t", items: [{ url: "x", customKey: "k", title: "x".repeat(201), scheduledAt: "bad" }] }, "Item k: Invalid date: bad");
  });

  it("Item <key>: text PostgreSQL cannot store (a NUL, an unpaired surrogate) in any string, named by its field", async () => {
    const cannot = "holds a NUL character or an unpaired surrogate, which cannot be stored";
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ url: "http://h/\u0000" }, "url"],
      [{ url: "http://h/\udc00x" }, "url"],
      [{ method: "PO\u0000ST" }, "method"],
      [{ title: "a\ud800" }, "title"],
      [{ tags: ["ok", "b\u0000"] }, "tags"],
      [{ headers: { "x-a\u0000": "1" } }, "headers"],
      [{ headers: { "x-a": "\ud83d" } }, "headers"],
    ];
    for (const [fields, field] of cases) await msg({ tag: "t", items: [{ url: "x", customKey: "k", ...fields }] }, `Item k: ${field} ${cannot}`);
    await msg({ tag: "t", items: [{ url: "x", customKey: "k\u0000" }] }, `Item k\u0000: customKey ${cannot}`);
    await msg({ tag: "t\u0000", items: [{ url: "x", customKey: "k" }] }, `tag ${cannot}`);
    // a whole surrogate pair is text like any other
    await ok(post(api, "/declare", { tag: "emoji", items: [{ url: "http://h/😀", customKey: "😀", title: "😀", headers: { "x-e": "😀" } }] }));
  });

  it("Item <key>: a body nested too deeply to be written out is a 400, a deep one within reach is stored", async () => {
    // sent as text: the test's own JSON.stringify could not write it out either
    const declaration = (tag: string, depth: number) => `{"tag":"${tag}","items":[{"url":"x","customKey":"deep","body":${"[".repeat(depth)}${"]".repeat(depth)}}]}`;
    await msg(declaration("t", 100_000), "Item deep: body is nested too deeply");
    await ok(post(api, "/declare", declaration("deep-ok", 500)));
  });

  it("the first failing item wins", async () => {
    await msg(
      { tag: "t", items: [{ url: "ok", customKey: "1" }, { url: "x", customKey: "2", scheduledAt: "nope" }, { url: "y", customKey: "3", tags: ["a", "a"] }] },
      "Item 2: Invalid date: nope",
    );
  });

  it("nothing is written when a later item fails, even with earlier valid ones", async () => {
    await ok(post(api, "/declare", { tag: "keep", items: [{ url: "http://a", customKey: "a" }] }));
    await msg({ tag: "keep", items: [{ url: "http://b", customKey: "b" }, { url: "x", customKey: "c", scheduledAt: "bad" }] }, "Item c: Invalid date: bad");
  });
});

describe("limits and other answers", () => {
  it("413 over 10 MiB", async () => {
    const big = JSON.stringify({ tag: "t", items: [{ url: "x", body: { _tag: "text", value: "x".repeat(10 * 1024 * 1024) } }] });
    const res = await expectNoWrites(api.db, () => post(api, "/declare", big));
    expect(res.status).toBe(413);
    expect(res.json()._tag).toBe("PayloadTooLarge");
  });

  it("accepts a body just under 10 MiB", async () => {
    const value = "x".repeat(10 * 1024 * 1024 - 200);
    const body = await ok(post(api, "/declare", { tag: "big", items: [{ url: "x", customKey: "big", body: { _tag: "text", value } }] }));
    expect(body.summary.added).toBe(1);
  });

  it("404 with an empty body for other methods", async () => {
    for (const method of ["GET", "PUT", "DELETE"]) {
      const res = await api.call(method, "/declare", { "ttr-api-key": api.apiKey });
      expectError(res, 404, null);
    }
  });

  it("neither uses nor checks the monthly quota (rule 12)", async () => {
    const { apiKey } = await createProject(api.db, "no-quota", 0);
    const body = await ok(post(api, "/declare", { tag: "q", items: [{ url: "x" }, { url: "y", scheduledAt: "cron(0 * * * *)" }] }, { "ttr-api-key": apiKey }));
    expect(body.summary.added).toBe(2);
    const usage = await api.db.$queryRawUnsafe<unknown[]>("SELECT * FROM project_usage");
    expect(usage).toEqual([]);
  });
});
