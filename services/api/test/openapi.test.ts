// GET /openapi.json: a valid OpenAPI 3.1 document, served without
// credentials, and every operation it lists answered live at least once and
// conforming to it (test/support/openapi-conformance.ts checks each answer
// as it arrives). The checker itself is shown to catch drift.
import { Validator } from "@seriousme/openapi-schema-validator";
import { openApiDocument } from "@ttr/api/openapi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type TestApi } from "../../../test/support/api.js";
import { answered, nonConformities } from "../../../test/support/openapi-conformance.js";
import { seedTrigger, signIn, type TestSession } from "../../../test/support/session.js";

type Json = Record<string, any>;

const doc = openApiDocument() as Json;
const OPERATION_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

let api: TestApi;
let s: TestSession;
beforeAll(async () => {
  api = await startApi();
  s = await signIn(api);
});
afterAll(() => api?.close());

describe("the document", () => {
  it("validates as OpenAPI 3.1", async () => {
    const validator = new Validator();
    const result = await validator.validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
  });

  it("every $ref points at something and every operationId is unique", () => {
    const refs: string[] = [];
    const walk = (v: unknown): void => {
      if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) k === "$ref" ? refs.push(x as string) : walk(x);
    };
    walk(doc);
    for (const ref of refs) {
      const target = ref.slice(2).split("/").reduce((at: Json | undefined, key) => at?.[key], doc);
      expect(target, ref).toBeDefined();
    }
    const ids = Object.values(doc.paths as Json).flatMap((item) => OPERATION_METHODS.filter((m) => item[m]).map((m) => item[m].operationId));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("documents every endpoint of the api, and the answers every operation shares", () => {
    expect(Object.keys(doc.paths).sort()).toEqual(
      [
        "/schedule", "/cancel", "/declare", "/bulk", "/tag-policies", "/tag-policies/{id}", "/auth/login", "/auth/logout", "/triggers",
        "/triggers/{id}", "/triggers/{id}/replay", "/triggers/{id}/retry", "/executions", "/project", "/stats", "/overview", "/healthz", "/readyz",
        "/metrics", "/openapi.json", "/reference", "/reference/{asset}", "/dashboard", "/dashboard/{page}", "/dead-letters/replay",
        "/dead-letters/discard",
      ].sort(),
    );
    expect(OPERATION_METHODS.filter((m) => doc.paths["/schedule"][m])).toEqual(OPERATION_METHODS);
    expect(Object.keys(doc.paths["/tag-policies"]).sort()).toEqual(["get", "post"]);
    expect(Object.keys(doc.paths["/tag-policies/{id}"]).sort()).toEqual(["delete", "parameters", "put"]);
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(["apiKey", "bearer", "session"]);
    // Every storage-backed endpoint says it may answer 503 Unavailable with Retry-After.
    for (const path of ["/schedule", "/cancel", "/declare", "/bulk", "/tag-policies", "/triggers", "/executions", "/project", "/stats", "/overview", "/auth/login"]) {
      const op = doc.paths[path].post ?? doc.paths[path].get ?? doc.paths[path].delete;
      expect(op.responses["503"], path).toEqual({ $ref: "#/components/responses/Unavailable" });
    }
    expect(doc.components.responses.Unavailable.headers["Retry-After"]).toEqual({ $ref: "#/components/headers/RetryAfter" });
    expect(doc.components.headers.RetryAfter.required).toBe(true);
    expect(doc.components.schemas.UnavailableError.properties._tag).toEqual({ type: "string", const: "Unavailable" });
    expect(doc.components.responses.UnsupportedMediaType.content).toHaveProperty("text/plain");
    expect(doc.components.responses.PayloadTooLarge.content["application/json"].schema).toEqual({ $ref: "#/components/schemas/PayloadTooLargeError" });
    // ttr-error: on every answer without a body, and on the body-less variant of the 400s.
    const ttrError = { $ref: "#/components/headers/TtrError" };
    expect(doc.components.responses.NoSuchRoute.headers["ttr-error"]).toEqual(ttrError);
    expect(doc.components.responses.HeadersTooLarge.headers["ttr-error"]).toEqual(ttrError);
    for (const [path, method] of [["/schedule", "post"], ["/cancel", "delete"], ["/declare", "post"], ["/bulk", "post"], ["/tag-policies", "post"], ["/tag-policies/{id}", "put"]] as const) {
      expect(doc.paths[path][method].responses["400"]["x-empty-body"], `${method} ${path}`).toEqual({ headers: { "ttr-error": ttrError } });
    }
    // The opt-in delivery fields of a tag policy, in requests and answers.
    for (const schema of ["TagPolicyCreate", "TagPolicyUpdate", "TagPolicy"]) {
      expect(Object.keys(doc.components.schemas[schema].properties)).toEqual(expect.arrayContaining(["signing", "honorRetryAfter", "notifyUrl"]));
    }
  });
});

describe("GET /openapi.json", () => {
  it("is the document, as JSON, without credentials", async () => {
    const res = await api.call("GET", "/openapi.json");
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^application\/json/);
    expect(res.json()).toEqual(doc);
  });
});

describe("every documented operation, live", () => {
  it("answers each one, and every answer conforms", async () => {
    const key = { "ttr-api-key": api.apiKey };
    const json = { ...key, "Content-Type": "application/json" };
    const later = { ...key, "ttr-url": "http://127.0.0.1:9/hook", "ttr-scheduled-at": "2099-01-01T00:00:00Z" };
    for (const method of OPERATION_METHODS) {
      const res = await api.call(method.toUpperCase(), "/schedule", later, ["get", "head", "options"].includes(method) ? undefined : "payload");
      expect(res.status, method).toBe(200);
    }
    const scheduled = (await api.call("POST", "/schedule", { ...later, "ttr-custom-key": "k1" })).json();
    expect((await api.call("DELETE", "/cancel", { ...key, "ttr-trigger-id": scheduled.triggerId })).status).toBe(204);
    expect((await api.call("POST", "/declare", json, JSON.stringify({ tag: "t", items: [{ url: "http://127.0.0.1:9/", scheduledAt: "2099-01-01" }] }))).status).toBe(200);
    expect((await api.call("POST", "/bulk", json, JSON.stringify({ upserts: [{ url: "http://127.0.0.1:9/", customKey: "b" }], cancels: ["b"] }))).status).toBe(200);

    expect((await api.call("GET", "/tag-policies", key)).status).toBe(200);
    const policy = (await api.call("POST", "/tag-policies", json, JSON.stringify({ tag: "t", maxConcurrent: 2 }))).json().tagPolicy;
    expect((await api.call("PUT", `/tag-policies/${policy.id}`, json, JSON.stringify({ maxConcurrent: 3 }))).status).toBe(200);
    expect((await api.call("DELETE", `/tag-policies/${policy.id}`, key)).status).toBe(200);

    const spare = await signIn(api);
    expect((await spare.call("POST", "/auth/logout")).status).toBe(204);
    const completed = () => seedTrigger(api, api.projectId, { status: "completed", attempts: 1 });
    const id = await completed();
    for (const path of ["/triggers", `/triggers/${id}`, "/executions", "/project", "/stats", "/overview"]) expect((await s.call("GET", path)).status, path).toBe(200);
    expect((await s.call("POST", `/triggers/${id}/replay`)).status).toBe(202);
    expect((await s.call("POST", `/triggers/${await completed()}/retry`)).status).toBe(202);
    const made = await s.call("POST", "/triggers", {}, { url: "http://127.0.0.1:9/made", scheduledAt: "2099-01-01T00:00:00Z" });
    expect(made.status).toBe(200);
    const edited = await s.call("PUT", `/triggers/${made.json().triggerId}`, {}, { url: "http://127.0.0.1:9/edited", scheduledAt: "2099-01-02" });
    expect(edited.status).toBe(200);
    expect((await s.call("DELETE", `/triggers/${made.json().triggerId}`)).status).toBe(204);
    expect((await s.call("POST", "/dead-letters/replay", {}, { dryRun: true })).status).toBe(200);
    expect((await api.call("POST", "/dead-letters/discard", json, JSON.stringify({ tag: "t" }))).status).toBe(200);

    for (const method of ["GET", "HEAD"]) {
      for (const path of ["/healthz", "/readyz", "/metrics", "/dashboard", "/dashboard/triggers/abc"]) {
        expect([200, 503], `${method} ${path}`).toContain((await api.call(method, path)).status);
      }
    }
    expect((await api.call("GET", "/reference")).status).toBe(200);
    expect((await api.call("GET", "/reference/init.js")).status).toBe(200);

    // Each documented operation got at least one answer.
    const seen = [...answered].map((a) => a.split(" ").slice(0, 2).join(" "));
    const missing = Object.entries(doc.paths as Json).flatMap(([path, item]) =>
      OPERATION_METHODS.filter((m) => item[m] && !seen.includes(`${m.toUpperCase()} ${path}`)).map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect(missing).toEqual([]);
  });

  it("the refusals conform too: 400 with and without a body, 401, 404 with and without a body, 410, 413, 415", async () => {
    const key = { "ttr-api-key": api.apiKey };
    const json = { ...key, "Content-Type": "application/json" };
    const cases: Array<[number, Promise<{ status: number }>]> = [
      [400, api.call("POST", "/schedule", {})],
      [400, api.call("POST", "/schedule", { ...key, "ttr-url": "nope" })],
      [401, api.call("POST", "/schedule", { "ttr-api-key": "ttr_nope", "ttr-url": "http://127.0.0.1:9/" })],
      [404, api.call("DELETE", "/cancel", { ...key, "ttr-custom-key": "none" })],
      [404, api.call("GET", "/no-such-path")],
      [404, api.call("POST", "/cancel", key)],
      [400, api.call("POST", "/declare", json, "{")],
      [415, api.call("POST", "/bulk", { ...key, "Content-Type": "text/plain" }, "{}")],
      [413, api.call("POST", "/schedule", { ...key, "ttr-url": "http://127.0.0.1:9/" }, "x".repeat(1024 * 1024 + 1))],
      [400, api.call("POST", "/tag-policies", json, JSON.stringify({ tag: "t" }))],
      [401, api.call("GET", "/tag-policies")],
      [404, api.call("DELETE", "/tag-policies/00000000-0000-4000-8000-000000000000", key)],
      [400, s.call("GET", "/triggers?limit=0")],
      [401, api.call("GET", "/project")],
      [404, s.call("GET", "/triggers/00000000-0000-4000-8000-000000000000")],
      [410, s.call("POST", `/triggers/${await seedTrigger(api, api.projectId)}/replay`)],
      [404, api.call("GET", "/reference/nope.js")],
      [401, api.call("POST", "/auth/login", { "Content-Type": "application/json" }, JSON.stringify({ email: "a@b.c", password: "x" }))],
    ];
    for (const [status, reply] of cases) expect((await reply).status).toBe(status);
  });
});

describe("methods a path does not take", () => {
  it("are answered 404 with no body on every documented path", async () => {
    const concrete = (path: string) =>
      path.replace("{id}", "00000000-0000-4000-8000-000000000000").replace("{asset}", "init.js").replace("{page}", "triggers");
    const failures: string[] = [];
    for (const [path, item] of Object.entries(doc.paths as Json)) {
      for (const method of ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE"]) {
        if (item[method.toLowerCase()] || item["x-any-method"]) continue;
        // The conformance check of each answer is the assertion: an undocumented method must get the 404 with no body.
        await api.call(method, concrete(path), { "ttr-api-key": api.apiKey, Cookie: s.cookie }).catch((err: Error) => failures.push(err.message));
      }
    }
    expect(failures).toEqual([]);
  });
});

describe("the conformance check catches drift", () => {
  const url = (path: string) => new URL(path, "http://127.0.0.1:1");
  const body = (v: unknown) => Buffer.from(JSON.stringify(v));
  const jsonType = { "content-type": "application/json; charset=utf-8" };

  it("an undocumented field, a wrong _tag, a missing field", () => {
    expect(nonConformities("GET", url("/healthz"), { status: 200, headers: jsonType, body: body({ status: "ok" }) })).toEqual([]);
    expect(nonConformities("GET", url("/healthz"), { status: 200, headers: jsonType, body: body({ status: "ok", extra: 1 }) })).toHaveLength(1);
    expect(nonConformities("GET", url("/project"), { status: 401, headers: jsonType, body: body({ _tag: "NotFound", message: "x" }) })).toHaveLength(1);
    expect(nonConformities("DELETE", url("/cancel"), { status: 410, headers: jsonType, body: body({ _tag: "Gone" }) })).toHaveLength(1);
  });

  it("an undocumented status, path or method, and a route that should not exist", () => {
    expect(nonConformities("GET", url("/healthz"), { status: 201, headers: jsonType, body: body({ status: "ok" }) })[0]).toMatch(/status 201 is not documented/);
    const reason = { "ttr-error": "PATCH /triggers is not an endpoint" };
    expect(nonConformities("PATCH", url("/triggers"), { status: 404, headers: reason, body: Buffer.alloc(0) })).toEqual([]);
    expect(nonConformities("PATCH", url("/triggers"), { status: 404, headers: {}, body: Buffer.alloc(0) })[0]).toMatch(/required header ttr-error is missing/);
    expect(nonConformities("PATCH", url("/triggers"), { status: 200, headers: jsonType, body: body({}) })).toHaveLength(1);
    expect(nonConformities("GET", url("/Healthz"), { status: 200, headers: jsonType, body: body({ status: "ok" }) })).toHaveLength(1);
  });

  it("headers and bodies where none or others are documented", () => {
    const unavailable = body({ _tag: "Unavailable", message: "Storage unavailable, try again" });
    expect(nonConformities("GET", url("/stats"), { status: 503, headers: { ...jsonType, "retry-after": "5" }, body: unavailable })).toEqual([]);
    expect(nonConformities("GET", url("/stats"), { status: 503, headers: jsonType, body: unavailable })[0]).toMatch(/Retry-After is missing/);
    expect(nonConformities("DELETE", url("/cancel"), { status: 204, headers: jsonType, body: body({}) })).toHaveLength(2);
    expect(nonConformities("POST", url("/bulk"), { status: 415, headers: jsonType, body: body({}) })[0]).toMatch(/Content-Type .* is not documented/);
    // No body where one is documented: only where the document allows it (the malformed-request 400s).
    const reason = { "ttr-error": "Body is not valid JSON" };
    expect(nonConformities("POST", url("/declare"), { status: 400, headers: reason, body: Buffer.alloc(0) })).toEqual([]);
    expect(nonConformities("POST", url("/declare"), { status: 400, headers: {}, body: Buffer.alloc(0) })[0]).toMatch(/required header ttr-error is missing/);
    expect(nonConformities("POST", url("/declare"), { status: 400, headers: { "ttr-error": "two\nlines" }, body: Buffer.alloc(0) })).toHaveLength(1);
    expect(nonConformities("POST", url("/declare"), { status: 401, headers: reason, body: Buffer.alloc(0) })).toHaveLength(1);
    // A 400 with a JSON body does not need the header.
    expect(nonConformities("POST", url("/declare"), { status: 400, headers: jsonType, body: body({ _tag: "BadRequest", message: "x" }) })).toEqual([]);
  });
});
