// Dashboard sign-in behind a proxy that sends its upstream's name as Host
// (nginx's proxy_pass): with TRUST_PROXY, the page's Origin is compared with
// the X-Forwarded-Host the proxy names, and only a trusted proxy's.
import { createUser } from "@ttr/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type TestApi } from "../../../test/support/api.js";
import { login } from "../../../test/support/session.js";

describe("cross-site requests behind a proxy that sends its upstream's name as Host", () => {
  let proxied: TestApi;
  let untrusting: TestApi;
  beforeAll(async () => {
    [proxied, untrusting] = await Promise.all([startApi({ trustProxy: "loopback" }), startApi()]);
    for (const api of [proxied, untrusting]) await createUser(api.db, api.projectId, "proxied@example.com", "pw-proxied");
  });
  afterAll(async () => {
    await proxied?.close();
    await untrusting?.close();
  });

  const browser = { Host: "ttr-api:8080", "X-Forwarded-Proto": "https", "Sec-Fetch-Site": "same-origin", Origin: "https://ttr.example.com" };

  it("takes the trusted proxy's X-Forwarded-Host as the host the browser sent the request to", async () => {
    const res = await login(proxied, "proxied@example.com", "pw-proxied", { ...browser, "X-Forwarded-Host": "ttr.example.com" });
    expect(res.status, res.text).toBe(200);
  });

  it("still refuses an Origin that is neither", async () => {
    for (const headers of [browser, { ...browser, "X-Forwarded-Host": "ttr.example.com", Origin: "https://evil.example" }]) {
      const res = await login(proxied, "proxied@example.com", "pw-proxied", headers);
      expect(res.status).toBe(403);
      expect(res.json()).toEqual({ _tag: "Forbidden", message: "Cross-site request refused" });
    }
  });

  it("believes X-Forwarded-Host only from a trusted proxy", async () => {
    const res = await login(untrusting, "proxied@example.com", "pw-proxied", { ...browser, "X-Forwarded-Host": "ttr.example.com" });
    expect(res.status).toBe(403);
  });
});
