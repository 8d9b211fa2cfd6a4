// The dashboard's lists in a real browser, on rows written straight to the
// tables (the api alone, nothing moves them on): the trigger filters keep
// what was typed when a choice is picked, and a filter value the API refuses
// shows as what it is; Tag policies refreshes by itself like the other
// lists; times in the lists show both the viewer's zone and UTC
// (docs/dashboard.md); Load more clicked while a refresh is out adds the
// next rows once each; an address with a trailing slash shows its page.
// The viewer is in Europe/Berlin (browser.ts).
import type { Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type TestApi } from "../support/api.js";
import { seedExecution, seedTrigger } from "../support/session.js";
import { type Browser, holdRefresh, signedInBrowser, waitText } from "./browser.js";

let api: TestApi;
let browser: Browser;
let page: Page;
const T = 60_000;
const dashboard = (p = "") => `${api.base}/dashboard${p}`;
const row = (id: string) => page.locator(`[data-testid=trigger-row][data-id="${id}"]`);

/** 10:00 UTC on 15 January 2099 is 11:00 in Berlin (standard time). */
const JANUARY = new Date("2099-01-15T10:00:00Z");
const ids: Record<string, string> = {};

beforeAll(async () => {
  api = await startApi();
  ids.later = await seedTrigger(api, api.projectId, { title: "Much later", tags: ["states"], scheduledAt: JANUARY, createdAt: JANUARY });
  ids.done = await seedTrigger(api, api.projectId, { status: "completed", title: "Done", tags: ["states"], attempts: 1 });
  ids.other = await seedTrigger(api, api.projectId, { status: "completed", title: "Done elsewhere", tags: ["elsewhere"], attempts: 1 });
  browser = await signedInBrowser(api, "lists");
  page = browser.page;
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await api?.close();
});

describe("the dashboard's lists", () => {
  it("picking a status or kind keeps a tag typed but not yet applied, and applies it with the choice", async () => {
    await page.goto(dashboard("/triggers"));
    await row(ids.other!).waitFor();
    await page.getByLabel("Tag", { exact: true }).fill("states");
    await page.getByLabel("Status").selectOption("completed");
    await page.waitForURL(/status=completed/);
    expect(new URL(page.url()).searchParams.get("tag")).toBe("states");
    expect(await page.getByLabel("Tag", { exact: true }).inputValue()).toBe("states");
    await row(ids.other!).waitFor({ state: "detached" });
    await row(ids.done!).waitFor();
    expect(await page.locator("[data-testid=trigger-row]").count()).toBe(1);

    await page.getByLabel("Custom key").fill("none-such");
    await page.getByLabel("Kind").selectOption("job");
    await page.waitForURL(/kind=job/);
    expect(Object.fromEntries(new URL(page.url()).searchParams)).toEqual({ status: "completed", tag: "states", kind: "job", customKey: "none-such" });
  }, T);

  it("a status or kind the API refuses shows in its select as unknown, not as Any", async () => {
    await page.goto(dashboard("/triggers?status=bogus&kind=odd"));
    await waitText(page.getByRole("alert"), "Invalid");
    const selected = (label: string) => page.getByLabel(label).evaluate((s: HTMLSelectElement) => s.selectedOptions[0]?.textContent);
    expect(await page.getByLabel("Status").inputValue()).toBe("bogus");
    expect(await selected("Status")).toBe("bogus (unknown)");
    expect(await page.getByLabel("Kind").inputValue()).toBe("odd");
    expect(await selected("Kind")).toBe("odd (unknown)");
    // picking a real one leaves the unknown behind
    await page.getByLabel("Status").selectOption("completed");
    await page.getByLabel("Kind").selectOption("");
    await page.waitForURL((u) => u.search === "?status=completed");
    expect(await page.getByLabel("Status").locator("option", { hasText: "unknown" }).count()).toBe(0);
  }, T);

  it("Tag policies shows a policy made elsewhere without a reload", async () => {
    await page.goto(dashboard("/tag-policies"));
    await page.getByText("No tag policies yet.").waitFor();
    const made = await api.call("POST", "/tag-policies", { "ttr-api-key": api.apiKey, "Content-Type": "application/json" }, JSON.stringify({ tag: "late", maxConcurrent: 1 }));
    expect(made.status, made.text).toBe(200);
    // the list refreshes every 5 s
    await page.locator('[data-testid=policy][data-tag="late"]').waitFor({ timeout: 8000 });
  }, T);

  it("times in the trigger list, the execution rows and the dead letters show the viewer's zone and UTC", async () => {
    await page.goto(dashboard("/triggers"));
    const cells = row(ids.later!).locator("td");
    await cells.first().waitFor();
    for (const column of [4, 5]) {
      const text = await cells.nth(column).textContent();
      expect(text).toContain("15 Jan 2099, 11:00:00 CET");
      expect(text).toContain("15 Jan 2099, 10:00:00 UTC");
      expect(await cells.nth(column).locator(".time-utc").isVisible()).toBe(true);
    }
    await browser.screenshot("62-list-times");

    // Executions: compact, the date left out when it is today in that zone.
    const at = new Date(Date.now() - 60_000);
    await seedExecution(api, api.projectId, ids.done!, { attemptNumber: 1, plannedAt: JANUARY, startedAt: at, completedAt: at, responseStatus: 500, isDeadLetter: true });
    await page.goto(dashboard(`/triggers/${ids.done}`));
    const execution = page.locator("[data-testid=execution-row]").locator("td");
    await execution.first().waitFor();
    expect(await execution.nth(3).textContent()).toBe("15 Jan, 11:00:00 CET · 15 Jan, 10:00:00 UTC");
    for (const column of [4, 5]) expect(await execution.nth(column).textContent()).toMatch(/^(\d\d:\d\d:\d\d|\d+ \w+, \d\d:\d\d:\d\d) CES?T · (\d\d:\d\d:\d\d|\d+ \w+, \d\d:\d\d:\d\d) UTC$/);
    await browser.screenshot("63-execution-times");

    await page.goto(dashboard("/dead-letters"));
    const failed = page.locator(`[data-testid=dead-letter-row][data-trigger="${ids.done}"] td`).first();
    await failed.waitFor();
    expect(await failed.textContent()).toMatch(/^\d+ \w+ \d{4}, \d\d:\d\d:\d\d CES?T · \d+ \w+ \d{4}, \d\d:\d\d:\d\d UTC$/);
    await browser.screenshot("64-dead-letter-times");
    expect(browser.problems).toEqual([]);
  }, T);
});

/**
 * Clicks Load more while a timed refresh is held, lets the refresh end after
 * the page came, then clicks Load more again and gives the rows shown then:
 * well before the next refresh (5 s on), which would mend the list by itself.
 */
async function loadMoreDuringRefresh(path: string, rows: Locator, more: Locator): Promise<string[]> {
  await waitText(more, "Load more");
  expect(await rows.count()).toBe(50);
  const refresh = await holdRefresh(page, (url) => url.pathname === path && !url.searchParams.has("cursor"));
  await refresh.sent;
  await more.click();
  await page.waitForFunction((n) => document.querySelectorAll("[data-testid$=-row]").length >= n, 100);
  refresh.release();
  await refresh.back;
  await page.waitForTimeout(200);
  const next = page.waitForResponse((r) => new URL(r.url()).pathname === path && new URL(r.url()).searchParams.has("cursor"));
  await more.click();
  await next;
  await page.waitForTimeout(300);
  expect(await more.count()).toBe(0);
  return rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-id") ?? tr.getAttribute("data-trigger") ?? ""));
}

describe("Load more while a refresh is out", () => {
  it("on Triggers, adds the next page after the refresh comes back, and every row once", async () => {
    const many: string[] = [];
    for (let i = 0; i < 120; i++) many.push(await seedTrigger(api, api.projectId, { title: `Many ${i}`, tags: ["many"], createdAt: new Date(Date.now() - i * 1000) }));
    await page.goto(dashboard("/triggers?tag=many"));
    const rows = page.locator("[data-testid=trigger-row]");
    const shown = await loadMoreDuringRefresh("/triggers", rows, page.getByRole("button", { name: "Load more" }));
    expect(shown).toEqual(many);
  }, T);

  it("on Dead letters, adds the next page after the refresh comes back, with no row twice", async () => {
    const failed = Date.now() - 3600_000;
    for (let i = 0; i < 120; i++) {
      const id = await seedTrigger(api, api.projectId, { status: "completed", title: `Dead ${i}`, tags: ["dead-many"], attempts: 1 });
      const at = new Date(failed - i * 1000);
      await seedExecution(api, api.projectId, id, { attemptNumber: 1, plannedAt: at, startedAt: at, completedAt: at, responseStatus: 500, isDeadLetter: true });
    }
    const all = await api.call("GET", "/executions?deadLetterOnly=true&limit=500", { "ttr-api-key": api.apiKey });
    const expected = (all.json().executions as Array<{ triggerId: string }>).map((e) => e.triggerId);
    expect(expected.length).toBeGreaterThanOrEqual(120);
    await page.goto(dashboard("/dead-letters"));
    const rows = page.locator("[data-testid=dead-letter-row]");
    await rows.first().waitFor();
    const shown = await loadMoreDuringRefresh("/executions", rows, page.getByRole("button", { name: "Load more" }));
    expect(shown).toEqual(expected);
  }, T);
});

describe("odd titles, addresses and answers", () => {
  it("a trigger whose title shows nothing (empty, blank, zero-width) is listed and headed by its method and URL", async () => {
    const blank: string[] = [];
    for (const [i, title] of ["", "   ", "\u200B\u00AD\u200B"].entries()) {
      blank.push(await seedTrigger(api, api.projectId, { title, url: `http://127.0.0.1:9/blank-${i}`, method: "PUT", tags: ["blank"] }));
    }
    await page.goto(dashboard("/triggers?tag=blank"));
    for (const [i, id] of blank.entries()) {
      const link = row(id).locator("a.row-link");
      await link.waitFor();
      expect(await link.textContent()).toBe(`PUT http://127.0.0.1:9/blank-${i}`);
      expect((await link.boundingBox())?.height ?? 0).toBeGreaterThan(0);
    }
    await row(blank[0]!).locator("a.row-link").click();
    await waitText(page.locator("h1"), "PUT http://127.0.0.1:9/blank-0");
  }, T);

  it("a trigger address with a malformed escape shows Trigger not found, not an empty page", async () => {
    for (const segment of ["%ZZ", "%E0%A4%A"]) {
      await page.goto(dashboard(`/triggers/${segment}`));
      await waitText(page.locator("h1"), "Trigger not found");
    }
  }, T);

  it("an address with a trailing slash shows its page, not Page not found", async () => {
    for (const [path, heading] of [
      ["/triggers/", "Triggers"],
      ["/dead-letters/", "Dead letters"],
      ["/tag-policies/", "Tag policies"],
      [`/triggers/${ids.later}/`, "Much later"],
    ] as const) {
      await page.goto(dashboard(path));
      await waitText(page.getByRole("heading", { level: 1 }), heading);
      expect(await page.getByText("Page not found").count()).toBe(0);
    }
  }, T);

  it("opened while ttr cannot reach its storage, the page says so and comes by itself once it can: no sign-in form", async () => {
    await page.route("**/project", (route) =>
      route.fulfill({ status: 503, contentType: "application/json", headers: { "retry-after": "1" }, body: JSON.stringify({ _tag: "Unavailable", message: "Storage unavailable, try again" }) }),
    );
    await page.goto(dashboard("/triggers"));
    await waitText(page.getByRole("alert"), "Storage unavailable, try again");
    expect(await page.getByText("Sign in to the dashboard").count()).toBe(0);
    await page.unroute("**/project");
    await row(ids.later!).waitFor({ timeout: 10_000 });
  }, T);
});
