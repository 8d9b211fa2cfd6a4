// The dashboard in a real browser against the whole system (api, scheduler
// and executor as processes, a real target): sign in, watch a trigger fire,
// replay it, find a dead letter, manage tag policies, sign out. The tests run
// in order on one page, as a person would; each saves a screenshot under
// test-results/screenshots/.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { randomBytes } from "node:crypto";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser } from "@ttr/db";
import { printLogsOnFailure, startSystem, type System } from "../support/system.js";
import { startTarget, type Target } from "../support/target.js";
import { type Browser, openBrowser, waitText } from "./browser.js";

let sys: System;
printLogsOnFailure(() => sys);
let target: Target;
let browser: Browser;
let page: Page;
const email = `person-${randomBytes(3).toString("hex")}@example.com`;
const password = "a long enough password";

beforeAll(async () => {
  target = await startTarget();
  target.on("/hello", (_req, res) => res.writeHead(200, { "content-type": "application/json", "x-reply": "<i>hi</i>" }).end('{"hello":"<b>world</b>"}'));
  target.on("/fail", (_req, res) => res.writeHead(500, { "content-type": "text/plain" }).end("boom"));
  sys = await startSystem();
  await createUser(sys.db, sys.projectId, email, password);
  browser = await openBrowser();
  page = browser.page;
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await sys?.stop();
  await target?.close();
});

/** axe-core, the accessibility engine, evaluated in the page. */
const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
const T = 60_000;
const dashboard = (p = "") => `${sys.base}/dashboard${p}`;

async function schedule(path: string, headers: Record<string, string> = {}, body?: string): Promise<string> {
  const res = await sys.call("POST", "/schedule", { "ttr-api-key": sys.apiKey, "ttr-url": `${target.base}${path}`, "ttr-scheduled-at": "now", ...headers }, body);
  expect(res.status, res.text).toBe(200);
  return res.json().triggerId as string;
}

const nav = (name: string) => page.getByRole("navigation", { name: "Main" }).getByRole("link", { name, exact: true });
const row = (id: string) => page.locator(`[data-testid=trigger-row][data-id="${id}"]`);
const execution = (attempt: number) => page.locator(`[data-testid=execution-row][data-attempt="${attempt}"]`);

async function signIn(): Promise<void> {
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
}

describe("the dashboard in a browser", () => {
  it("signs in, showing the API's message for wrong credentials first", async () => {
    await page.goto(dashboard());
    await page.getByRole("heading", { name: "Sign in to the dashboard" }).waitFor();
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill("wrong password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await waitText(page.getByRole("alert"), "Invalid credentials");
    await browser.screenshot("01-sign-in-error");

    // The API's rate limit (10 tries per email and address) comes back as its own message.
    await page.evaluate(async () => {
      for (let i = 0; i < 10; i++) {
        await fetch("/auth/login", { method: "POST", headers: { "Content-Type": "application/json" }, body: '{"email":"locked@example.com","password":"x"}' });
      }
    });
    await page.getByLabel("Email").fill("locked@example.com");
    await page.getByLabel("Password").fill("x");
    await page.getByRole("button", { name: "Sign in" }).click();
    await waitText(page.getByRole("alert"), /^Too many sign-in attempts, try again later \(about \d+ minutes\)\.$/);

    await signIn();
    await page.getByRole("heading", { level: 1, name: "e2e" }).waitFor();
    await page.getByRole("heading", { name: "Quota this month" }).waitFor();
    await waitText(page.locator(".big-number"), /0\s+of 100,000/);
    await page.getByRole("img", { name: /Attempts per minute over the last 60 minutes/ }).waitFor();
    await browser.screenshot("02-overview");
  }, T);

  it("shows a trigger go from Scheduled to Completed, then its request, execution and response as text", async () => {
    const id = await schedule(
      "/hello?x=1",
      { "ttr-scheduled-at": "now | add 5s", "ttr-tags": "greetings,demo", "ttr-title": "Say <b>hello</b>", "Content-Type": "text/html", "X-Note": "<script>alert(1)</script>" },
      "<b>not markup</b>",
    );
    await nav("Triggers").click();
    await page.getByRole("heading", { level: 1, name: "Triggers" }).waitFor();
    await waitText(row(id), "Scheduled", 4000);
    await waitText(row(id), "Completed", 20_000);
    await browser.screenshot("03-trigger-list");

    await row(id).getByRole("link").click();
    await page.getByRole("heading", { level: 1, name: "Say <b>hello</b>" }).waitFor();
    // Stored values are text: the markup in title, header and body is shown, not rendered.
    expect(await page.locator("h1 b, .headers script, pre.body b").count()).toBe(0);
    await waitText(page.locator(".headers"), "<script>alert(1)</script>");
    await waitText(page.locator("pre.body"), "<b>not markup</b>");
    await waitText(page.getByTestId("request-url"), `${target.base}/hello?x=1`);
    await waitText(page.locator(".kvs"), /Scheduled \(UTC\)\s*\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC/);
    await waitText(page.locator(".kvs"), "Your time (Europe/Berlin)");

    await waitText(execution(1), "scheduler");
    await waitText(execution(1), "200");
    await waitText(execution(1).locator("td").nth(9), "No");
    await execution(1).getByRole("button", { name: /Show response/ }).click();
    const response = page.locator(".response-row").first();
    await waitText(response, '{"hello":"<b>world</b>"}');
    await waitText(response, "<i>hi</i>");
    expect(await response.locator("b, i").count()).toBe(0);
    await browser.screenshot("04-trigger-detail");
  }, T);

  it("Replay now asks first, then adds attempt 2 triggered by replay", async () => {
    const replay = page.getByRole("button", { name: "Replay now" });
    expect(await replay.isEnabled()).toBe(true);
    expect(await page.getByRole("button", { name: "Retry now" }).isEnabled()).toBe(true);

    await replay.click();
    const dialog = page.getByRole("dialog", { name: "Replay this trigger now?" });
    await dialog.waitFor();
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "hidden" });
    expect(target.hits("/hello")).toHaveLength(1);

    await replay.click();
    await dialog.getByRole("button", { name: "Replay now" }).click();
    await waitText(page.getByRole("status"), "attempt 2 is queued");
    await target.waitFor("/hello", 2);
    await waitText(execution(2), "replay");
    await waitText(execution(2), "200", 20_000);
    await browser.screenshot("05-replayed");
  }, T);

  it("Retry now only, while a trigger is retrying", async () => {
    const policy = await sys.call(
      "POST",
      "/tag-policies",
      { "ttr-api-key": sys.apiKey, "Content-Type": "application/json" },
      JSON.stringify({ tag: "flaky", retryStrategy: "fixed", retryInitialDelaySeconds: 3600, retryOn: "non_2xx" }),
    );
    expect(policy.status, policy.text).toBe(200);
    const id = await schedule("/fail", { "ttr-tags": "flaky", "ttr-title": "Flaky call" });
    await page.goto(dashboard(`/triggers/${id}`));
    await waitText(page.locator(".detail-head .badge"), "Retrying", 20_000);
    await page.getByRole("button", { name: "Retry now" }).waitFor();
    expect(await page.getByRole("button", { name: "Replay now" }).isDisabled()).toBe(true);
    expect(await page.getByRole("button", { name: "Retry now" }).isEnabled()).toBe(true);

    await page.getByRole("button", { name: "Retry now" }).click();
    await page.getByRole("dialog", { name: "Retry this trigger now?" }).getByRole("button", { name: "Retry now" }).click();
    await target.waitFor("/fail", 2);
    await waitText(execution(2), "retry", 20_000);
    await waitText(execution(2), "500", 20_000);
    await browser.screenshot("06-retried");
  }, T);

  it("a failing target's attempt shows up in the dead-letter view, with Replay now", async () => {
    const id = await schedule("/fail", { "ttr-title": "Doomed call" });
    await nav("Dead letters").click();
    await page.getByRole("heading", { level: 1, name: "Dead letters" }).waitFor();
    const dead = page.locator(`[data-testid=dead-letter-row][data-trigger="${id}"]`);
    await waitText(dead, "HTTP 500", 20_000);
    await waitText(dead, "Doomed call");
    await browser.screenshot("07-dead-letters");

    const before = target.hits("/fail").length;
    await dead.getByRole("button", { name: "Replay now" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Replay now" }).click();
    await waitText(page.getByRole("status"), "attempt 2 of the trigger is queued");
    await target.waitFor("/fail", before + 1);
    await browser.screenshot("07b-dead-letter-replayed");
  }, T);

  it("a dead letter's notification to its policy's notifyUrl shows on the trigger's page", async () => {
    const policy = await sys.call(
      "POST",
      "/tag-policies",
      { "ttr-api-key": sys.apiKey, "Content-Type": "application/json" },
      JSON.stringify({ tag: "reported", notifyUrl: `${target.base}/notify-ok` }),
    );
    expect(policy.status, policy.text).toBe(200);
    const id = await schedule("/fail", { "ttr-tags": "reported", "ttr-title": "Reported call" });
    await page.goto(dashboard(`/triggers/${id}`));
    await waitText(execution(1), "Dead letter", 20_000);
    await waitText(execution(1).getByTestId("notification"), "Notified (1 try)", 20_000);
    expect(target.hits("/notify-ok")).toHaveLength(1);
    await browser.screenshot("07c-dead-letter-notified");
    // the policy test below starts from the policies before this one
    const gone = await sys.call("DELETE", `/tag-policies/${policy.json().tagPolicy.id}`, { "ttr-api-key": sys.apiKey });
    expect(gone.status).toBe(200);
  }, T);

  it("creates, edits and deletes a tag policy; the API's messages appear at their fields", async () => {
    const sent: Array<{ method: string; body: unknown }> = [];
    page.on("request", (r) => {
      if (new URL(r.url()).pathname.startsWith("/tag-policies") && r.method() !== "GET") {
        sent.push({ method: r.method(), body: r.postData() ? JSON.parse(r.postData()!) : null });
      }
    });
    await nav("Tag policies").click();
    await page.getByRole("heading", { level: 1, name: "Tag policies" }).waitFor();
    await page.locator('[data-testid=policy][data-tag="flaky"]').waitFor();

    await page.getByRole("button", { name: "New policy" }).click();
    await page.getByLabel("Tag", { exact: true }).fill("Bad Tag");
    await page.getByLabel("Max concurrent").fill("2");
    await page.getByRole("button", { name: "Create policy" }).click();
    await waitText(page.locator("#p-tag-error"), "Invalid tag (only a-z 0-9 _ - allowed, max 50 chars)");
    expect(await page.getByLabel("Tag", { exact: true }).getAttribute("aria-invalid")).toBe("true");
    // focus moves to the field in error (on the next animation frame after the message shows)
    await page.waitForFunction(() => document.activeElement?.id === "p-tag", undefined, { timeout: 5000 });

    await page.getByLabel("Tag", { exact: true }).fill("bursty");
    await page.getByRole("button", { name: "Add window" }).click();
    await page.getByLabel("Window", { exact: true }).fill("1m");
    await page.getByLabel("Rate", { exact: true }).fill("30");
    await page.getByRole("button", { name: "Create policy" }).click();
    const card = page.locator('[data-testid=policy][data-tag="bursty"]');
    await waitText(card, "30 per 1m · 2 at a time");
    expect(sent.at(-1)).toMatchObject({ method: "POST", body: { tag: "bursty", maxConcurrent: 2, throughput: { "1m": 30 }, retryStrategy: "none" } });

    await card.getByRole("button", { name: "Edit" }).click();
    await page.getByLabel("Timeout (seconds)").fill("5000");
    await page.getByRole("button", { name: "Save changes" }).click();
    await waitText(page.locator("#p-requestTimeoutSeconds-error"), "requestTimeoutSeconds must be between 1 and 3600");
    expect(await page.getByLabel("Timeout (seconds)").getAttribute("aria-invalid")).toBe("true");
    await browser.screenshot("08-policy-rejected");

    await page.getByLabel("Timeout (seconds)").fill("30");
    await page.getByRole("button", { name: "Save changes" }).click();
    await waitText(card, "timeout 30 s");
    // PUT sends only what changed
    expect(sent.at(-1)).toEqual({ method: "PUT", body: { requestTimeoutSeconds: 30 } });
    await browser.screenshot("09-policies");

    await card.getByRole("button", { name: "Delete" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Delete policy" }).click();
    await waitText(page.getByRole("status"), "Policy for “bursty” deleted");
    await card.waitFor({ state: "detached" });
    const left = await sys.db.$queryRawUnsafe<Array<{ tag: string }>>("SELECT tag FROM tag_policies WHERE project_id = $1::uuid", sys.projectId);
    expect(left.map((p) => p.tag)).toEqual(["flaky"]);
  }, T);

  it("a recurring trigger shows its cron in words, the next ten runs and its instances", async () => {
    const id = await schedule("/cron", { "ttr-scheduled-at": "cron(30 9 * * 1-5, America/New_York)", "ttr-custom-key": "weekday-report", "ttr-title": "Hidden recurring title" });
    await page.goto(dashboard("/triggers?kind=generator"));
    await waitText(row(id), "Active");
    await waitText(row(id), "At 09:30, Monday through Friday, America/New_York time");
    await row(id).getByRole("link").click();
    await waitText(page.locator(".kvs").first(), "At 09:30, Monday through Friday, America/New_York time");
    // docs/concepts.md: a recurring trigger's title is not displayed anywhere.
    await waitText(page.locator("main h1"), "/cron");
    expect(await page.getByText("Hidden recurring title").count()).toBe(0);
    expect(await page.title()).not.toContain("Hidden recurring title");
    expect(await page.title()).toMatch(/\/cron · ttr$/);
    await page.goBack();
    await waitText(row(id), "Active");
    expect(await page.getByText("Hidden recurring title").count()).toBe(0);
    await row(id).getByRole("link").click();
    await page.getByTestId("next-runs").waitFor();
    const runs = page.getByTestId("next-runs").locator("tbody tr");
    await runs.first().waitFor();
    expect(await runs.count()).toBe(10);
    await waitText(runs.first(), /09:30:00/);
    await waitText(runs.first(), /UTC-0[45]:00/);
    const instances = page.getByRole("region", { name: "Instances" }).locator("[data-testid=trigger-row]");
    await instances.first().waitFor();
    expect(await instances.count()).toBe(1);
    await waitText(instances.first(), "Scheduled");
    await browser.screenshot("10-recurring");

    // A run cancelled by its instance's ID is skipped: the list starts at the run after it.
    const firstRun = await runs.first().textContent();
    const secondRun = await runs.nth(1).textContent();
    const [pending] = await sys.db.$queryRawUnsafe<Array<{ id: string }>>("SELECT id::text FROM triggers WHERE generator_id = $1::uuid AND status = 'registered'", id);
    expect((await sys.call("DELETE", "/cancel", { "ttr-api-key": sys.apiKey, "ttr-trigger-id": pending!.id })).status).toBe(204);
    await instances.nth(1).waitFor({ timeout: 10_000 });
    await page.reload();
    await runs.first().waitFor();
    expect(await runs.first().textContent()).toBe(secondRun);
    expect(await runs.first().textContent()).not.toBe(firstRun);
  }, T);

  it("fits a narrow screen", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    for (const [path, name] of [["/triggers", "11-narrow-triggers"], ["/", "12-narrow-overview"]] as const) {
      await page.goto(dashboard(path));
      await page.locator("main h1").waitFor();
      await page.waitForLoadState("networkidle");
      const { overflow, wide } = await page.evaluate(() => {
        const width = document.documentElement.clientWidth;
        const wide = [...document.querySelectorAll("body *")]
          .filter((e) => e.getBoundingClientRect().right > width + 0.5)
          .map((e) => `${e.tagName.toLowerCase()}.${e.className} ${Math.round(e.getBoundingClientRect().right)}`);
        return { overflow: document.documentElement.scrollWidth - width, wide: wide.slice(0, 5) };
      });
      expect(overflow, `${path} scrolls sideways: ${wide.join(", ")}`).toBeLessThanOrEqual(0);
      await browser.screenshot(name);
    }
    await page.setViewportSize({ width: 1280, height: 860 });
  }, T);

  it("goes back to sign-in when the session ends, and returns to the same page after", async () => {
    // Timed refreshes say they are background requests (they do not keep an idle session alive); opening the page does not.
    const marks: Array<string | undefined> = [];
    const onRequest = (r: { url(): string; headers(): Record<string, string> }) => {
      if (new URL(r.url()).pathname === "/executions") marks.push(r.headers()["x-ttr-background"]);
    };
    page.on("request", onRequest);
    await page.goto(dashboard("/dead-letters"));
    await page.getByRole("heading", { level: 1, name: "Dead letters" }).waitFor();
    const deadline = Date.now() + 10_000;
    while (!marks.includes("1") && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    page.off("request", onRequest);
    expect(marks[0]).toBeUndefined();
    expect(marks.slice(1)).toContain("1");
    await sys.db.$executeRawUnsafe("DELETE FROM sessions");
    // the next refresh (every 5 s) meets the 401
    await waitText(page.getByRole("status"), "Your session has ended", 15_000);
    await browser.screenshot("16-session-ended");
    await signIn();
    await page.getByRole("heading", { level: 1, name: "Dead letters" }).waitFor();
    await browser.screenshot("16b-back-after-sign-in");
  }, T);

  it("meets WCAG 2 A and AA as axe-core checks them (names, labels, contrast, structure) on every page", async () => {
    const [generator] = await sys.db.$queryRawUnsafe<Array<{ id: string }>>("SELECT id::text FROM generators LIMIT 1");
    const [trigger] = await sys.db.$queryRawUnsafe<Array<{ id: string }>>("SELECT id::text FROM triggers WHERE generator_id IS NULL ORDER BY created_at LIMIT 1");
    const pages = ["/", "/triggers", `/triggers/${trigger!.id}`, `/triggers/${generator!.id}`, "/dead-letters", "/tag-policies"];
    const found: string[] = [];
    for (const p of pages) {
      await page.goto(dashboard(p));
      await page.locator("main h1").waitFor();
      await page.waitForLoadState("networkidle");
      // Evaluated through the DevTools protocol: the page's CSP allows no inline script.
      await page.evaluate(AXE);
      const { violations, passed } = await page.evaluate(async () => {
        type Rule = { id: string; nodes: Array<{ target: unknown[] }> };
        const axe = (window as unknown as { axe: { run(ctx: Document, opts: object): Promise<{ violations: Rule[]; passes: Rule[] }> } }).axe;
        const result = await axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] } });
        return {
          violations: result.violations.map((v) => `${v.id} ×${v.nodes.length} at ${JSON.stringify(v.nodes[0]?.target)}`),
          passed: result.passes.map((r) => r.id),
        };
      });
      found.push(...violations.map((v) => `${p}: ${v}`));
      // The rules really ran on this page's content, colour contrast among them.
      expect(passed, p).toEqual(expect.arrayContaining(["color-contrast", "document-title", "html-has-lang"]));
    }
    expect(found).toEqual([]);
  }, T);

  it("is usable from the keyboard", async () => {
    await page.goto(dashboard());
    await page.getByRole("heading", { level: 1, name: "e2e" }).waitFor();
    // by now the chart has the attempts of the tests above
    await page.getByRole("img", { name: /[1-9]\d* successful/ }).waitFor();
    await browser.screenshot("15-overview-activity");
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Skip to content");
    // focus is visible: the focused element draws an outline
    expect(await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle)).toBe("solid");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Triggers");
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { level: 1, name: "Triggers" }).waitFor();
  }, T);

  it("signs out", async () => {
    await page.getByRole("button", { name: "Sign out" }).click();
    await waitText(page.getByRole("status"), "You have signed out.");
    await page.getByRole("heading", { name: "Sign in to the dashboard" }).waitFor();
    const status = await page.evaluate(async () => (await fetch("/project")).status);
    expect(status).toBe(401);
    await browser.screenshot("13-signed-out");
    expect(browser.problems).toEqual([]);
  }, T);
});
