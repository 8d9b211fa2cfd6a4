// The rendered reference in a real browser: Swagger UI draws every endpoint
// of /openapi.json under the page's strict Content-Security-Policy, with no
// console error or CSP violation, and requests nothing from another origin.
import { afterAll, beforeAll, expect, it } from "vitest";
import { startApi, type TestApi } from "../support/api.js";
import { type Browser, openBrowser } from "./browser.js";

let api: TestApi;
let browser: Browser;
beforeAll(async () => {
  api = await startApi();
  browser = await openBrowser();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await api?.close();
});

it("renders every endpoint of the document, offline and within its CSP", async () => {
  const { page } = browser;
  const requested: string[] = [];
  page.on("request", (r) => requested.push(r.url()));
  const violations: string[] = [];
  page.on("console", (m) => {
    if (/Content.Security.Policy|Refused to/i.test(m.text())) violations.push(m.text());
  });

  await page.goto(`${api.base}/reference`);
  await page.locator(".opblock").first().waitFor({ timeout: 20_000 });
  const doc = (await api.call("GET", "/openapi.json")).json();
  const operations = Object.values(doc.paths as Record<string, Record<string, unknown>>).reduce(
    (n, item) => n + ["get", "put", "post", "delete", "options", "head", "patch", "trace"].filter((m) => item[m]).length,
    0,
  );
  expect(await page.locator(".opblock").count()).toBe(operations);
  expect(await page.locator(".info .title").textContent()).toContain("ttr");
  await browser.screenshot("reference");

  expect(violations).toEqual([]);
  expect(browser.problems).toEqual([]);
  const origins = new Set(requested.filter((u) => !u.startsWith("data:")).map((u) => new URL(u).origin));
  expect([...origins]).toEqual([api.base]);
}, 60_000);
