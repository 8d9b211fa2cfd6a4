// What an item stores (docs/api/declare-and-bulk.md, items;
// docs/concepts.md, what the target receives): defaults, headers as written, body
// encodings, no Content-Type added, a body even with GET, tags, titles, and
// the instance snapshot of a recurring item.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type TestApi } from "../../../test/support/api.js";
import { generatorRow, inHours, instances, jobRow, ok, post } from "./declare-support.js";

let api: TestApi;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

const T1 = inHours(5);
async function storedBody(body: unknown, extra: Record<string, unknown> = {}): Promise<Buffer | null> {
  const out = await ok(post(api, "/declare", { tag: "bodies", items: [{ url: "http://x/", customKey: "b", scheduledAt: T1, body, ...extra }] }));
  return (await jobRow(api, out.operations[0].id)).body;
}

describe("defaults and stored fields", () => {
  it("an item with only a url: GET, now, no headers, no body, no title, the declared tag", async () => {
    const before = Math.floor(Date.now() / 1000) * 1000;
    const out = await ok(post(api, "/declare", { tag: "defaults", items: [{ url: "http://127.0.0.1:9/only-url" }] }));
    expect(out.tag).toBe("defaults");
    expect(out.operations).toEqual([{ operation: "added", customKey: null, kind: "job", id: expect.any(String) }]);
    const row = await jobRow(api, out.operations[0].id);
    expect(row).toMatchObject({ status: "registered", customKey: null, generatorId: null, method: "GET", headers: [], body: null, title: null, tags: ["defaults"], source: "item", attempts: 0 });
    expect(row.scheduledAt.getTime()).toBeGreaterThanOrEqual(before);
    expect(row.scheduledAt.getTime()).toBeLessThanOrEqual(Date.now());
  });

  it("stores the url unchecked, the method upper-cased, headers as written in order, title and tags", async () => {
    const headers = { "X-First": "1", "ttr-api-key-like": "kept", Host: "example.org", "content-LENGTH": "99", "X-Empty": "" };
    const item = { url: "not even a url", customKey: "k", method: "patch", headers, title: "Ünïcödé ☃", tags: ["B", "a", "Not-A-Policy"], scheduledAt: T1 };
    const out = await ok(post(api, "/declare", { tag: "stored", items: [item] }));
    const row = await jobRow(api, out.operations[0].id);
    expect(row.url).toBe("not even a url");
    expect(row.method).toBe("PATCH");
    expect(row.headers).toEqual(Object.entries(headers));
    expect(row.title).toBe("Ünïcödé ☃");
    expect(row.tags).toEqual(["B", "a", "Not-A-Policy", "stored"]);
    expect(row.scheduledAt.toISOString()).toBe(T1);
  });

  it("keeps the declared tag once when the item lists it", async () => {
    const out = await ok(post(api, "/declare", { tag: "once", items: [{ url: "x", tags: ["once", "b"] }] }));
    expect((await jobRow(api, out.operations[0].id)).tags).toEqual(["once", "b"]);
  });

  it("stores times to the second, milliseconds dropped, offsets applied", async () => {
    const out = await ok(post(api, "/declare", { tag: "times", items: [{ url: "x", customKey: "t", scheduledAt: "2031-03-04T05:06:07.999+02:00" }] }));
    expect((await jobRow(api, out.operations[0].id)).scheduledAt.toISOString()).toBe("2031-03-04T03:06:07.000Z");
  });

  it("years run from 0001 on /declare and /bulk as on /schedule: a time in year 0000 is an invalid date, 0001 is stored and read back", async () => {
    for (const at of ["0000-01-01T00:00:00Z", "0001-01-01T00:30:00+01:00"]) {
      for (const [path, body, prefix] of [
        ["/declare", { tag: "year-one", items: [{ url: "x", customKey: "y", scheduledAt: at }] }, "Item y"],
        ["/bulk", { upserts: [{ url: "x", customKey: "y", scheduledAt: at }] }, "Upsert y"],
      ] as const) {
        const res = await post(api, path, body);
        expect([res.status, res.json()], `${path} ${at}`).toEqual([400, { _tag: "BadRequest", message: `${prefix}: Invalid date: ${at}` }]);
      }
      const res = await api.call("POST", "/schedule", { "ttr-api-key": api.apiKey, "ttr-url": "http://x/", "ttr-scheduled-at": at });
      expect([res.status, res.json().message]).toEqual([400, `Invalid date: ${at}`]);
    }
    const items = [{ url: "x", customKey: "y1", scheduledAt: "0001-01-01T00:00:00Z" }];
    const out = await ok(post(api, "/declare", { tag: "year-one", items }));
    expect(out.operations.map((o: { operation: string }) => o.operation)).toEqual(["skipped"]);
    const shown = (await api.call("GET", `/triggers/${out.operations[0].id}`, { "ttr-api-key": api.apiKey })).json().trigger;
    expect([shown.status, shown.scheduledAt]).toEqual(["skipped", "0001-01-01T00:00:00.000Z"]);
    const again = await ok(post(api, "/declare", { tag: "year-one", items }));
    expect(again.operations.map((o: { operation: string }) => o.operation)).toEqual(["unchanged"]);
  });
});

describe("bodies (item rules 4, 5)", () => {
  it("sends objects, arrays, numbers, booleans and strings as compact JSON", async () => {
    expect((await storedBody({ a: 1, b: [1, 2], c: { d: null } }))?.toString()).toBe('{"a":1,"b":[1,2],"c":{"d":null}}');
    expect((await storedBody([1, "two"]))?.toString()).toBe('[1,"two"]');
    expect((await storedBody(1.5))?.toString()).toBe("1.5");
    expect((await storedBody(true))?.toString()).toBe("true");
    expect((await storedBody("quoted"))?.toString()).toBe('"quoted"');
  });

  it("_tag text is UTF-8 without quotes; _tag base64 is the decoded bytes, invalid characters skipped", async () => {
    expect((await storedBody({ _tag: "text", value: "plain ☃" }))?.toString("utf8")).toBe("plain ☃");
    expect(await storedBody({ _tag: "base64", value: "AAH/" })).toEqual(Buffer.from([0, 1, 255]));
    expect(await storedBody({ _tag: "base64", value: "aGVs*bG8" })).toEqual(Buffer.from("hello"));
    // base64url's - and _ are not base64: skipped, not read as + and /.
    expect(await storedBody({ _tag: "base64", value: "aGk-" })).toEqual(Buffer.from("hi"));
    expect(await storedBody({ _tag: "base64", value: "a_G-k" })).toEqual(Buffer.from("hi"));
  });

  it("omitted, null, and empty text or base64 values store no body", async () => {
    for (const body of [undefined, null, { _tag: "text", value: "" }, { _tag: "base64", value: "" }]) expect(await storedBody(body)).toBeNull();
  });

  it("other objects, and _tag objects without a string value, are stored as JSON", async () => {
    expect((await storedBody({ _tag: "json", value: "x" }))?.toString()).toBe('{"_tag":"json","value":"x"}');
    expect((await storedBody({ _tag: "base64", value: 12 }))?.toString()).toBe('{"_tag":"base64","value":12}');
  });

  it("keeps the body with GET and adds no Content-Type", async () => {
    const out = await ok(post(api, "/declare", { tag: "get-body", items: [{ url: "x", method: "get", body: { q: 1 } }] }));
    const row = await jobRow(api, out.operations[0].id);
    expect(row.method).toBe("GET");
    expect(row.body?.toString()).toBe('{"q":1}');
    expect(row.headers).toEqual([]);
  });
});

describe("recurring items", () => {
  it("store the definition on the recurring trigger; the instance snapshots it without a title", async () => {
    const item = {
      url: "http://127.0.0.1:9/cron",
      customKey: "g",
      scheduledAt: "cron(0  9 * * MON-FRI ,  europe/paris)",
      method: "put",
      headers: { "X-C": "c" },
      body: { _tag: "text", value: "tick" },
      title: "Nightly",
      tags: ["r"],
    };
    const out = await ok(post(api, "/declare", { tag: "rec", items: [item] }));
    const gen = await generatorRow(api, out.operations[0].id);
    expect(gen).toMatchObject({
      status: "active",
      customKey: "g",
      cronExpr: "0 9 * * MON-FRI",
      tz: "europe/paris", // the zone exactly as written
      method: "PUT",
      headers: [["X-C", "c"]],
      title: "Nightly",
      tags: ["r", "rec"],
      source: "item",
    });
    expect(gen.body?.toString()).toBe("tick");
    const [instance] = await instances(api, gen.id);
    const row = await jobRow(api, instance!.id);
    expect(row).toMatchObject({ status: "registered", customKey: null, title: null, method: "PUT", headers: [["X-C", "c"]], tags: ["r", "rec"], source: "item" });
    expect(row.body?.toString()).toBe("tick");
  });
});
