// The overview page in a real browser, on rows written straight to the
// tables (the api alone, no scheduler to move them on): the queue, the held
// backlog per tag, the lateness chart, the next hour's chart and the next
// due triggers show the seeded numbers, another project's rows show
// nowhere, the charts render with no Content-Security-Policy violation or
// console error, and axe-core finds no WCAG 2 A/AA problem
// (docs/dashboard.md).
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createProject, createUser } from "@ttr/db";
import { startApi, type TestApi } from "../support/api.js";
import { seedExecution, seedTrigger } from "../support/session.js";
import { type Browser, openBrowser } from "./browser.js";

let api: TestApi;
let browser: Browser;
let page: Page;
const email = "overview@example.com";
const password = "overview password 1";
const MINUTE = 60_000;
/** Ids of the triggers due next, in due order. */
const due: string[] = [];

/** A completed trigger whose first attempt was due at `plannedAt` and started `lateMs` after. */
async function started(projectId: string, plannedAt: number, lateMs: number): Promise<void> {
  const t = await seedTrigger(api, projectId, { status: "completed", attempts: 1, scheduledAt: new Date(plannedAt) });
  const start = plannedAt + lateMs;
  await seedExecution(api, projectId, t, { attemptNumber: 1, plannedAt: new Date(plannedAt), startedAt: new Date(start), completedAt: new Date(start + 50), responseStatus: 200 });
}

async function planned(projectId: string, opts: { dispatched?: boolean; heldBy?: string; agoMs: number }): Promise<void> {
  const at = new Date(Date.now() - opts.agoMs);
  const t = await seedTrigger(api, projectId, { status: "queued", attempts: 1, tags: opts.heldBy ? [opts.heldBy] : [], scheduledAt: at });
  await seedExecution(api, projectId, t, { attemptNumber: 1, status: "planned", plannedAt: at, dispatchedAt: opts.dispatched ? new Date() : null, heldBy: opts.heldBy ?? null });
}

beforeAll(async () => {
  api = await startApi();
  const other = (await createProject(api.db, "neighbour", 1000)).projectId;
  const p = api.projectId;
  // Lateness: 5 first attempts three minutes ago (p50 300 ms, p99 and max 1.5 s), one seven minutes ago (2.5 s).
  const threeAgo = Math.floor(Date.now() / MINUTE) * MINUTE - 3 * MINUTE;
  for (const late of [100, 200, 300, 400, 1_500]) await started(p, threeAgo + 10_000, late);
  await started(p, threeAgo - 4 * MINUTE + 10_000, 2_500);
  await started(other, threeAgo + 10_000, 50_000);
  // The queue: 2 waiting, 3 running; held: slow 3, batch 1.
  for (const agoMs of [20_000, 8_000]) await planned(p, { dispatched: true, agoMs });
  for (let i = 0; i < 3; i++) await seedTrigger(api, p, { status: "running", attempts: 1, scheduledAt: new Date(Date.now() - 5_000) });
  for (const agoMs of [90_000, 30_000, 10_000]) await planned(p, { heldBy: "slow", agoMs });
  await planned(p, { heldBy: "batch", agoMs: 5_000 });
  for (let i = 0; i < 7; i++) await planned(other, { heldBy: "theirs", agoMs: 1_000 });
  for (let i = 0; i < 4; i++) await planned(other, { dispatched: true, agoMs: 1_000 });
  // Due soon: 2 within minutes, 1 a little later, 1 near the end of the hour, 1 past it.
  const thisMinute = Math.floor(Date.now() / MINUTE) * MINUTE;
  const at = (minutes: number) => new Date(thisMinute + minutes * MINUTE);
  due.push(await seedTrigger(api, p, { scheduledAt: at(3), title: "Send the <b>report</b>", tags: ["reports"] }));
  due.push(await seedTrigger(api, p, { scheduledAt: at(3.5), customKey: "invoice-42", method: "GET", url: "https://example.com/invoices/42" }));
  due.push(await seedTrigger(api, p, { scheduledAt: at(8) }));
  due.push(await seedTrigger(api, p, { scheduledAt: at(59.5) }));
  due.push(await seedTrigger(api, p, { scheduledAt: at(75) }));
  await seedTrigger(api, other, { scheduledAt: at(3), title: "Not yours" });

  await createUser(api.db, p, email, password);
  browser = await openBrowser();
  page = browser.page;
  // Recorded from the first script on: every CSP violation the page reports.
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { cspViolations: string[] }).cspViolations = seen;
    document.addEventListener("securitypolicyviolation", (e) => seen.push(`${e.violatedDirective} ${e.blockedURI} ${e.sample}`));
  });
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await api?.close();
});

const T = 60_000;
const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

async function waitText(locator: Locator, text: string | RegExp, timeout = 20_000): Promise<void> {
  const pattern = typeof text === "string" ? new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")) : text;
  await locator.filter({ hasText: pattern }).first().waitFor({ timeout });
}

describe("the overview page", () => {
  it("signs in and shows the queue and the held backlog per tag, of this project only", async () => {
    await page.goto(`${api.base}/dashboard/`);
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { level: 1, name: "test" }).waitFor();

    await waitText(page.getByTestId("queue-waiting"), /In the queue, not started\s*2$/);
    await waitText(page.getByTestId("queue-running"), /Running\s*3$/);
    await waitText(page.getByTestId("queue-held"), /Held by tag policies\s*4$/);
    await waitText(page.getByRole("region", { name: "Queue" }), /The oldest in the queue was due (\d+ seconds|1 minute) ago\./);
    const held = page.getByTestId("held-row");
    expect(await held.evaluateAll((rows) => rows.map((r) => [r.getAttribute("data-tag"), r.querySelectorAll("td")[1]?.textContent]))).toEqual([
      ["slow", "3"],
      ["batch", "1"],
    ]);
    await waitText(held.first(), /\d minutes ago/);
    expect(await held.first().getByRole("link", { name: "slow" }).getAttribute("href")).toBe("/dashboard/triggers?tag=slow&status=queued");
  }, T);

  it("draws lateness per minute: the seeded percentiles in words, and one dot per series for each of the two minutes", async () => {
    const chart = page.getByRole("img", { name: /^Lateness of first attempts over the last 60 minutes/ });
    await chart.waitFor();
    expect(await chart.getAttribute("aria-label")).toMatch(
      /^Lateness of first attempts over the last 60 minutes: 6 started; the highest 99th percentile of a minute was 2\.5 s at \d\d:\d\d, the largest lateness 2\.5 s at \d\d:\d\d\.$/,
    );
    await chart.locator("svg.recharts-surface").waitFor();
    expect(await chart.locator(".recharts-line-dots circle").count()).toBe(6);
    const legend = page.getByRole("region", { name: /Lateness of first attempts/ }).locator(".legend");
    await waitText(legend, /Started\s*6/);
    await waitText(legend, /Median\s*worst minute\s*2\.5 s/);
    await waitText(legend, /99th percentile\s*worst minute\s*2\.5 s/);

    // The tooltip of the minute three minutes ago has its own figures.
    const dots = chart.locator(".recharts-line-dots").first().locator("circle");
    await chart.scrollIntoViewIfNeeded();
    const box = (await dots.last().boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    const tip = chart.locator(".chart-tip");
    await waitText(tip, /Started: 5/);
    // the median, 300 ms, reported as the upper bound of its histogram bucket (2^(66/8) ms)
    await waitText(tip, /Median: 304 ms/);
    await waitText(tip, /99th percentile: 1\.5 s/);
    await waitText(tip, /Largest: 1\.5 s/);
  }, T);

  it("draws the next hour per 5 minutes and lists the next triggers due, earliest first", async () => {
    const chart = page.getByRole("img", { name: /^Triggers due in the next hour/ });
    await chart.waitFor();
    expect(await chart.getAttribute("aria-label")).toMatch(/^Triggers due in the next hour: 4 in all; the most, 2, in the 5 minutes from \d\d:\d\d\.$/);
    await chart.locator("svg.recharts-surface").waitFor();
    // Slots with triggers due get a bar; empty ones none.
    expect(await chart.locator("path.recharts-rectangle").count()).toBe(3);
    await waitText(page.getByRole("region", { name: "Due in the next hour" }), "4 due in the next hour, per 5 minutes");

    const rows = page.getByTestId("due-row");
    expect(await rows.evaluateAll((r) => r.map((row) => row.getAttribute("data-id")))).toEqual(due);
    await waitText(rows.nth(0), "Send the <b>report</b>");
    expect(await rows.nth(0).locator("b").count()).toBe(0);
    await waitText(rows.nth(0), "reports");
    await waitText(rows.nth(1), "GET https://example.com/invoices/42");
    await waitText(rows.nth(1), "key invoice-42");
    expect(await page.getByText("Not yours").count()).toBe(0);
    await rows.nth(0).getByRole("link").click();
    await page.getByRole("heading", { level: 1, name: "Send the <b>report</b>" }).waitFor();
    await page.goBack();
    await page.getByRole("img", { name: /^Triggers due in the next hour/ }).waitFor();
    await browser.screenshot("overview");
  }, T);

  it("keeps the outcome chart with its title in words", async () => {
    const chart = page.getByRole("img", { name: /^Attempts per minute over the last 60 minutes/ });
    await chart.waitFor();
    expect(await chart.getAttribute("aria-label")).toBe(
      "Attempts per minute over the last 60 minutes: 6 successful, 0 HTTP failures, 0 network failures, 0 dead letters.",
    );
    await chart.locator("svg.recharts-surface").waitFor();
    expect(await chart.locator("path.recharts-rectangle").count()).toBe(2);
  }, T);

  it("meets WCAG 2 A and AA as axe-core checks them, with no CSP violation and no console error", async () => {
    await page.waitForLoadState("networkidle");
    await page.evaluate(AXE);
    const violations = await page.evaluate(async () => {
      type Rule = { id: string; nodes: Array<{ target: unknown[] }> };
      const axe = (window as unknown as { axe: { run(ctx: Document, opts: object): Promise<{ violations: Rule[] }> } }).axe;
      const result = await axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] } });
      return result.violations.map((v) => `${v.id} ×${v.nodes.length} at ${JSON.stringify(v.nodes[0]?.target)}`);
    });
    expect(violations).toEqual([]);
    expect(await page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations)).toEqual([]);
    expect(browser.problems).toEqual([]);
  }, T);
});
