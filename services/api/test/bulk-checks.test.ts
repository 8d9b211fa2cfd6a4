// docs/api/declare-and-bulk.md (what /bulk says differently): the /declare checks with `upserts` and
// `Upsert <key>`, the empty-body 400s of the bulk shape, credentials
// without a dashboard session (docs/api/README.md), and no quota (docs/api/declare-and-bulk.md).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createProject } from "@ttr/db";
import { startApi, type TestApi } from "../../../test/support/api.js";
import { signIn } from "../../../test/support/session.js";
import { expectNoWrites } from "../../../test/support/snapshot.js";
import { expectError, ok, post } from "./declare-support.js";

let api: TestApi;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

async function rejected(body: unknown, headers: Record<string, string>, status: number, tag: string | null, message?: string) {
  const res = await expectNoWrites(api.db, () => post(api, "/bulk", body, headers));
  expectError(res, status, tag, message);
}
const bad = (body: unknown, headers: Record<string, string> = {}) => rejected(body, headers, 400, null);
const msg = (body: unknown, message: string) => rejected(body, {}, 400, "BadRequest", message);

describe("shape and content type", () => {
  it("{} is valid and answers the whole response shape", async () => {
    expect(await ok(post(api, "/bulk", {}))).toEqual({ upserts: [], cancelled: [], summary: { added: 0, updated: 0, unchanged: 0, skipped: 0, cancelled: 0 } });
    expect((await api.call("POST", "/bulk", { "ttr-api-key": api.apiKey }, "{}")).status).toBe(200);
  });

  it("415 in plain text for another Content-Type, before the body and the key", async () => {
    const res = await expectNoWrites(api.db, () => post(api, "/bulk", "nope", { "Content-Type": "text/csv", "ttr-api-key": "x" }));
    expect(res.status).toBe(415);
    expect(res.headers["content-type"]).toMatch(/^text\/plain/);
    expect(res.text).toBe("Unsupported content-type: text/csv");
    expect((await post(api, "/bulk", {}, { "Content-Type": "application/JSON; charset=utf-8" })).status).toBe(200);
  });

  it("empty 400 for unparsable bodies, non-objects and non-list upserts or cancels", async () => {
    for (const body of ["{", "", "[]", "null"]) await bad(body, { "ttr-api-key": "wrong" });
    await bad({ upserts: {} });
    await bad({ upserts: null });
    await bad({ cancels: "id" });
    await bad({ cancels: null });
  });

  it("400 with an empty body: an upsert without url or with a null field", async () => {
    await bad({ upserts: [{ customKey: "a" }] }, { "ttr-api-key": "wrong" });
    await bad({ upserts: [null] });
    await bad({ upserts: [{ url: "x", title: null }] });
    await bad({ upserts: [{ url: "x", headers: { a: 2 } }] });
  });

  it("empty 400 for a malformed cancels entry", async () => {
    for (const entry of [1, null, true, [], {}, { foo: "x" }, { id: 5 }, { customKey: null }, { tag: ["a"] }, { id: "a", tag: "b" }]) {
      await bad({ cancels: [entry] }, { "ttr-api-key": "wrong" });
    }
  });

  it("413 over 10 MiB", async () => {
    const res = await post(api, "/bulk", { upserts: [{ url: "x", body: { _tag: "text", value: "y".repeat(10 * 1024 * 1024) } }] });
    expect(res.status).toBe(413);
    expect(res.json()._tag).toBe("PayloadTooLarge");
  });
});

describe("credentials", () => {
  it("401 Invalid api key for an unknown key, ttr-api-key winning over Bearer", async () => {
    await rejected({}, { "ttr-api-key": "ttr_nope" }, 401, "Unauthorized", "Invalid api key");
    await rejected({}, { "ttr-api-key": "ttr_nope", Authorization: `Bearer ${api.apiKey}` }, 401, "Unauthorized", "Invalid api key");
    await rejected({}, { "ttr-api-key": "", Authorization: "Bearer ttr_nope" }, 401, "Unauthorized", "Invalid api key");
  });

  it("401 Unauthorized without a key, and a dashboard session is not accepted", async () => {
    await rejected({}, { "ttr-api-key": "" }, 401, "Unauthorized", "Unauthorized");
    await rejected({}, { "ttr-api-key": "", Authorization: "Token abc" }, 401, "Unauthorized", "Unauthorized");
    const session = await signIn(api);
    const res = await expectNoWrites(api.db, () => session.call("POST", "/bulk", {}, { upserts: [{ url: "x" }] }));
    expectError(res, 401, "Unauthorized", "Unauthorized");
  });

  it("accepts Authorization: Bearer", async () => {
    await ok(post(api, "/bulk", {}, { "ttr-api-key": "", Authorization: `Bearer ${api.apiKey}` }));
  });

  it("uses no quota and never answers 402", async () => {
    const { apiKey } = await createProject(api.db, "zero", 0);
    const out = await ok(post(api, "/bulk", { upserts: [{ url: "x" }] }, { "ttr-api-key": apiKey }));
    expect(out.summary.added).toBe(1);
  });
});

describe("value checks use upserts and Upsert <key>", () => {
  it("Duplicate customKey in upserts, before any upsert's own checks", async () => {
    await msg({ upserts: [{ url: "x", scheduledAt: "bad" }, { url: "x", customKey: "d" }, { url: "y", customKey: "d" }] }, "Duplicate customKey in upserts: d");
  });

  it("Upsert <key>: duplicate tag, then the /schedule date messages, then the title", async () => {
    await msg({ upserts: [{ url: "x", customKey: "u", tags: ["a", "a"], scheduledAt: "bad" }] }, 'Upsert u: duplicate tag "a" in tags');
    await msg({ upserts: [{ url: "x", scheduledAt: "soon" }] }, "Upsert (no customKey): Invalid date: soon");
    await msg({ upserts: [{ url: "x", customKey: "p", scheduledAt: "now | add 1x" }] }, "Upsert p: Invalid duration: 1x");
    await msg({ upserts: [{ url: "x", customKey: "t", title: "t".repeat(201) }] }, "Upsert t: Title too long (max 200 chars)");
  });

  it("Upsert <key>: text PostgreSQL cannot store; a cancel naming such text names nothing", async () => {
    await msg({ upserts: [{ url: "x", customKey: "n", title: "\u0000" }] }, "Upsert n: title holds a NUL character or an unpaired surrogate, which cannot be stored");
    const res = await ok(post(api, "/bulk", { cancels: ["k\u0000", { tag: "t\ud800" }, { customKey: "\udc00" }, { id: "\u0000" }] }));
    expect(res).toMatchObject({ cancelled: [], summary: { cancelled: 0 } });
  });

  it("401 wins over the value checks, and a rejected call cancels nothing", async () => {
    const seeded = await ok(post(api, "/bulk", { upserts: [{ url: "x", customKey: "stay", tags: ["keep"], scheduledAt: "2035-01-01" }] }));
    await rejected({ upserts: [{ url: "x", customKey: "a" }, { url: "x", customKey: "a" }] }, { "ttr-api-key": "ttr_nope" }, 401, "Unauthorized", "Invalid api key");
    await msg({ cancels: [{ tag: "keep" }], upserts: [{ url: "x", scheduledAt: "bad" }] }, "Upsert (no customKey): Invalid date: bad");
    const again = await ok(post(api, "/bulk", { upserts: [{ url: "x", customKey: "stay", tags: ["keep"], scheduledAt: "2035-01-01" }] }));
    expect(again.upserts[0]).toMatchObject({ operation: "unchanged", id: seeded.upserts[0].id });
  });
});
