// Answers whose body must stay empty say why in a `ttr-error` header: one
// printable ASCII line, no body, no Content-Type.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type TestApi } from "../../../test/support/api.js";
import type { Reply } from "../../../test/support/http.js";

let api: TestApi;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

function expectEmptyWithReason(res: Reply, status: number, reason: string | RegExp): void {
  expect(res.status).toBe(status);
  expect(res.body.length).toBe(0);
  expect(res.headers["content-type"]).toBeUndefined();
  const header = res.headers["ttr-error"];
  expect(typeof header).toBe("string");
  expect(header as string).toMatch(/^[\x20-\x7e]+$/);
  if (typeof reason === "string") expect(header).toBe(reason);
  else expect(header).toMatch(reason);
}

const json = { "Content-Type": "application/json" };

describe("ttr-error on answers with no body", () => {
  it("/schedule: a missing URL, a missing key, a key sent only as Bearer", async () => {
    expectEmptyWithReason(await api.call("POST", "/schedule", { "ttr-api-key": api.apiKey }), 400, "ttr-url header is required");
    expectEmptyWithReason(await api.call("POST", "/schedule", { "ttr-url": "http://127.0.0.1:9/" }), 400, "ttr-api-key header is required");
    expectEmptyWithReason(
      await api.call("POST", "/schedule", { "ttr-url": "http://127.0.0.1:9/", Authorization: `Bearer ${api.apiKey}` }),
      400,
      "ttr-api-key header is required (this endpoint does not read the Authorization header)",
    );
  });

  it("/cancel without a key", async () => {
    expectEmptyWithReason(await api.call("DELETE", "/cancel", { "ttr-custom-key": "k" }), 400, "ttr-api-key header is required");
  });

  it("/declare and /bulk: empty body, invalid JSON, and the path of the first value out of shape", async () => {
    const key = { ...json, "ttr-api-key": api.apiKey };
    expectEmptyWithReason(await api.call("POST", "/declare", key, ""), 400, "Body is empty: a JSON object is required");
    expectEmptyWithReason(await api.call("POST", "/bulk", key, "{\"upserts\": ["), 400, /^Body is not valid JSON: /);
    expectEmptyWithReason(await api.call("POST", "/declare", key, JSON.stringify({ tag: "t" })), 400, "items is required");
    expectEmptyWithReason(await api.call("POST", "/declare", key, JSON.stringify([1])), 400, "Body must be an object");
    const upserts = [{ url: "http://a/" }, { url: "http://b/" }, { url: "http://c/" }, { method: "GET" }];
    expectEmptyWithReason(await api.call("POST", "/bulk", key, JSON.stringify({ upserts })), 400, "upserts[3].url is required");
    expectEmptyWithReason(
      await api.call("POST", "/declare", key, JSON.stringify({ tag: "t", items: [{ url: "http://a/", headers: { "x-n": 5 } }] })),
      400,
      "items[0].headers.x-n must be a string",
    );
    expectEmptyWithReason(
      await api.call("POST", "/bulk", key, JSON.stringify({ cancels: ["k", 5] })),
      400,
      "cancels[1] must be a string (an ID or a custom key) or an object with exactly one of id, customKey and tag",
    );
  });

  it("/tag-policies: the field that is out of shape", async () => {
    const key = { ...json, "ttr-api-key": api.apiKey };
    expectEmptyWithReason(await api.call("POST", "/tag-policies", key, JSON.stringify({ maxConcurrent: 2 })), 400, "tag is required");
    expectEmptyWithReason(
      await api.call("POST", "/tag-policies", key, JSON.stringify({ tag: "t", retryStrategy: "sometimes" })),
      400,
      /^retryStrategy must be one of /,
    );
  });

  it("an unknown path or a method the path does not take is a 404 that names what was asked", async () => {
    expectEmptyWithReason(await api.call("POST", "/cancel", { "ttr-api-key": api.apiKey }), 404, "No endpoint POST /cancel");
    expectEmptyWithReason(await api.call("GET", "/nowhere/\u00e9t\u00e9"), 404, /^No endpoint GET \/nowhere\//);
  });

  it("answers with a body keep their JSON and carry no ttr-error", async () => {
    const res = await api.call("POST", "/schedule", { "ttr-api-key": api.apiKey, "ttr-url": "not a url" });
    expect(res.status).toBe(400);
    expect(res.json()).toEqual({ _tag: "BadRequest", message: "Invalid URL: not a url" });
    expect(res.headers["ttr-error"]).toBeUndefined();
  });
});
