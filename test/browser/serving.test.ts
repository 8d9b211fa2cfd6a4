// The api serves the built dashboard at /dashboard (docs/api/dashboard-api.md): index.html
// for the app's own paths, hashed assets with a long cache, a strict CSP,
// and a clear 503 when the UI was never built.
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DASHBOARD_DIST, dashboardUiRoutes } from "../../services/api/src/routes/dashboard-ui.js";
import { startApi, type TestApi } from "../support/api.js";
import { request } from "../support/http.js";

let api: TestApi;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api?.close());

describe("GET /dashboard", () => {
  it("answers the app's HTML at /dashboard and every path under it", async () => {
    for (const p of ["/dashboard", "/dashboard/", "/dashboard/triggers", "/dashboard/triggers/4f0c6a52-0000-4000-8000-000000000000?x=1"]) {
      const res = await api.call("GET", p);
      expect(res.status, p).toBe(200);
      expect(res.headers["content-type"]).toMatch(/^text\/html/);
      expect(res.text).toContain('<div id="root"></div>');
      expect(res.headers["cache-control"]).toBe("no-cache");
      expect(res.headers["content-security-policy"]).toContain("default-src 'self'");
      expect(res.headers["x-frame-options"]).toBe("DENY");
    }
  });

  it("serves hashed assets for a year, and 404 for a missing one", async () => {
    const assets = readdirSync(path.join(DASHBOARD_DIST, "assets"));
    const js = assets.find((f) => f.endsWith(".js"))!;
    const res = await api.call("GET", `/dashboard/assets/${js}`);
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toMatch(/javascript/);
    expect(res.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect((await api.call("GET", "/dashboard/assets/missing.js")).status).toBe(404);
    expect((await api.call("GET", "/dashboardx")).status).toBe(404);
  });

  it("says so with a 503 when the UI is not built", async () => {
    const empty = mkdtempSync(path.join(os.tmpdir(), "ttr-no-dashboard-"));
    const app = express().use("/dashboard", dashboardUiRoutes(empty));
    const server = app.listen(0, "127.0.0.1");
    await new Promise((r) => server.once("listening", r));
    try {
      const res = await request(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, "GET", "/dashboard");
      expect(res.status).toBe(503);
      expect(res.headers["content-type"]).toMatch(/^text\/plain/);
      expect(res.text).toContain("The dashboard is not built. Run `npm run setup`");
    } finally {
      server.close();
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
