// GET /reference: the OpenAPI document rendered by Swagger UI, whose files
// the api serves from the installed swagger-ui-dist package (no network
// needed), under a Content-Security-Policy of its own that allows only this
// origin. The rendering itself is checked in a browser by
// test/browser/reference.test.ts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type TestApi } from "../../../test/support/api.js";

let api: TestApi;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api?.close());

function expectStrictCsp(csp: string | string[] | undefined): void {
  expect(csp).toBeTypeOf("string");
  const directives = new Map((csp as string).split(";").map((d) => d.trim().split(/\s+/)).map(([name, ...sources]) => [name!, sources]));
  expect(directives.get("default-src")).toEqual(["'none'"]);
  expect(directives.get("script-src")).toEqual(["'self'"]);
  expect(directives.get("style-src")).toEqual(["'self'"]);
  expect(directives.get("connect-src")).toEqual(["'self'"]);
  expect(directives.get("img-src")).toEqual(["'self'", "data:"]);
  expect(directives.get("frame-ancestors")).toEqual(["'none'"]);
  // Nothing from another origin, no inline or evaluated script anywhere.
  for (const sources of directives.values()) {
    for (const source of sources) expect(source).toMatch(/^('self'|'none'|data:)$/);
  }
}

describe("GET /reference", () => {
  it("is an HTML page that loads only its own assets and the document", async () => {
    const res = await api.call("GET", "/reference");
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^text\/html; charset=utf-8$/);
    expectStrictCsp(res.headers["content-security-policy"]);
    expect(res.headers["x-content-type-options"]).toBe("nosniff");
    const sources = [...res.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(sources.sort()).toEqual(["openapi.json", "reference/favicon-32x32.png", "reference/init.js", "reference/swagger-ui-bundle.js", "reference/swagger-ui.css"]);
    // No inline script: every <script> has a src.
    expect(res.text.match(/<script>/g)).toBeNull();
  });

  it("serves each asset with its content type, and 404 with no body for anything else", async () => {
    const expected: Array<[string, RegExp, number]> = [
      ["/reference/swagger-ui-bundle.js", /^text\/javascript/, 500_000],
      ["/reference/swagger-ui.css", /^text\/css/, 50_000],
      ["/reference/favicon-32x32.png", /^image\/png$/, 100],
      ["/reference/init.js", /^text\/javascript/, 100],
    ];
    for (const [path, type, minBytes] of expected) {
      const res = await api.call("GET", path);
      expect(res.status, path).toBe(200);
      expect(res.headers["content-type"], path).toMatch(type);
      expect(res.body.length, path).toBeGreaterThan(minBytes);
      expectStrictCsp(res.headers["content-security-policy"]);
    }
    const init = (await api.call("GET", "/reference/init.js")).text;
    expect(init).toContain("validatorUrl: null");
    expect(init).toContain('new URL("openapi.json", document.baseURI)');
    for (const path of ["/reference/index.html", "/reference/package.json", "/reference/..%2Fpackage.json", "/reference/swagger-ui.js.map", "/reference/", "/reference/constructor"]) {
      const res = await api.call("GET", path);
      expect(res.status, path).toBe(404);
      expect(res.body.length, path).toBe(0);
    }
  });

  it("needs no credentials, like the document it renders", async () => {
    expect((await api.call("GET", "/reference", { Cookie: "ttr_session=nope" })).status).toBe(200);
    expect((await api.call("GET", "/openapi.json", { "ttr-api-key": "ttr_unknown" })).status).toBe(200);
  });
});
