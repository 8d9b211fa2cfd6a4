// What the dashboard tells the session, in a real browser against the api
// alone: only its timed refreshes carry X-TTR-Background (so they do not
// keep an idle session alive), and what the person does while one is out
// does not; and a failed sign-out's message does not outlive the moment
// (docs/dashboard.md).
import type { Page, Request } from "playwright-core";
import { describe, expect, it } from "vitest";
import type { TestApi } from "../support/api.js";
import { type Browser, holdRefresh, useSignedInApi, waitText } from "./browser.js";

let api: TestApi;
let browser: Browser;
let page: Page;
useSignedInApi("session", (a, b) => {
  api = a;
  browser = b;
  page = b.page;
});
const T = 60_000;
const dashboard = (p = "") => `${api.base}/dashboard${p}`;
const key = () => ({ "ttr-api-key": api.apiKey, "Content-Type": "application/json" });

const background = (r: Request) => r.headers()["x-ttr-background"] === "1";

describe("the session", () => {
  it("Pause clicked while a timed refresh is out is the person's doing: no X-TTR-Background on it", async () => {
    const res = await api.call("POST", "/tag-policies", key(), JSON.stringify({ tag: "while-refreshing", maxConcurrent: 1 }));
    expect(res.status, res.text).toBe(200);
    const id = res.json().tagPolicy.id as string;
    await page.goto(dashboard("/tag-policies"));
    const card = page.locator('[data-testid=policy][data-tag="while-refreshing"]');
    await card.waitFor();

    const held = await holdRefresh(page, (url) => url.pathname === "/tag-policies");
    await held.sent;
    const put = page.waitForRequest((r) => r.method() === "PUT" && new URL(r.url()).pathname === `/tag-policies/${id}`);
    await card.getByRole("button", { name: "Pause while-refreshing" }).click();
    expect(background(await put)).toBe(false);
    await waitText(page.getByRole("status"), "“while-refreshing” is paused");
    held.release();
    await held.back;
    await held.stop();
  }, T);

  it("a failed sign-out's message is cleared by going to another page, and Dismiss takes it away", async () => {
    const logout = (url: URL) => url.pathname === "/auth/logout";
    await page.route(logout, (route) => route.abort());
    await page.goto(dashboard("/tag-policies"));
    const signOut = page.getByRole("button", { name: "Sign out" });
    const topbar = page.locator(".topbar [role=alert]");
    await signOut.click();
    await waitText(topbar, "Sign out failed: The server could not be reached");
    await page.unroute(logout);
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Triggers" }).click();
    await page.getByRole("heading", { level: 1, name: "Triggers" }).waitFor();
    await topbar.waitFor({ state: "detached", timeout: 3000 });

    await page.route(logout, (route) => route.abort());
    await signOut.click();
    await waitText(topbar, "Sign out failed");
    await topbar.getByRole("button", { name: "Dismiss" }).click();
    await topbar.waitFor({ state: "detached" });
    await page.unroute(logout);
    expect(browser.problems.filter((p) => !p.includes("net::ERR_FAILED"))).toEqual([]);
  }, T);
});
