// What the dashboard says when the API refuses, in a real browser on rows
// written straight to the tables (the api alone, nothing moves them on):
// a refused Cancel trigger, Replay now or Retry now on a trigger's page, a
// refused Pause or Delete on Tag policies and a refused Replay now on Dead
// letters keep their message through the refreshes that follow, until
// dismissed; and a time zone the API does not know is shown at the Time zone
// field of the trigger form (docs/dashboard.md). Each refusal is the API's
// own: the state changes while the person's request is on its way. And
// the dashboard's own refusal: New policy for a tag that has one already;
// and an Edit form kept, with what was typed, when its trigger is sent meanwhile.
import type { Page, Response } from "playwright-core";
import { describe, expect, it } from "vitest";
import type { TestApi } from "../support/api.js";
import { seedExecution, seedTrigger } from "../support/session.js";
import { axeViolations, type Browser, useSignedInApi, recordCalls, waitText } from "./browser.js";

let api: TestApi;
let browser: Browser;
let page: Page;
useSignedInApi("refusals", (a, b) => {
  api = a;
  browser = b;
  page = b.page;
});
const T = 60_000;
const dashboard = (p = "") => `${api.base}/dashboard${p}`;
const key = () => ({ "ttr-api-key": api.apiKey, "Content-Type": "application/json" });

/**
 * Runs `change` when the page sends its `method` request to `path`, and
 * only then lets the request go on: the API then refuses it as it would
 * when something else moved first. No refresh can slip in between.
 */
async function meanwhile(method: string, path: string, change: () => Promise<unknown>): Promise<void> {
  let done = false;
  await page.route(
    (url) => url.pathname === path,
    async (route) => {
      if (!done && route.request().method() === method) {
        done = true;
        await change();
      }
      await route.continue();
    },
  );
}

/** The next answer to the page's own GET of `path`, as its periodic refresh asks for it. */
const refreshOf = (path: string): Promise<Response> =>
  page.waitForResponse((r) => r.request().method() === "GET" && new URL(r.url()).pathname === path, { timeout: 15_000 });

const setStatus = (id: string, status: string) => api.db.$executeRawUnsafe(`UPDATE triggers SET status = '${status}' WHERE id = $1::uuid`, id);
const alert = () => page.getByRole("alert");

/**
 * The refusal stays on screen after the page's next refresh of `path` has
 * come back, and Dismiss removes it. With `screenshot`, the page is saved
 * and checked with axe-core while the refusal shows.
 */
async function staysUntilDismissed(text: string, path: string, screenshot?: string): Promise<void> {
  await waitText(alert(), text, 5000);
  await refreshOf(path);
  // give the answer time to render
  await page.waitForTimeout(300);
  expect(await alert().allInnerTexts()).toEqual([expect.stringContaining(text)]);
  if (screenshot) {
    await browser.screenshot(screenshot);
    expect(await axeViolations(page), "the page with a refusal shown").toEqual([]);
  }
  await alert().getByRole("button", { name: "Dismiss" }).click();
  await alert().waitFor({ state: "detached" });
}

describe("refusals in the dashboard", () => {
  it("a refused Cancel trigger keeps its message on the trigger's page through the next refresh", async () => {
    const id = await seedTrigger(api, api.projectId, { title: "Cancelled too late" });
    await page.goto(dashboard(`/triggers/${id}`));
    await meanwhile("DELETE", `/triggers/${id}`, () => setStatus(id, "queued"));
    await page.getByRole("button", { name: "Cancel trigger" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Cancel trigger" }).click();
    await staysUntilDismissed("Cancelling failed: Job is no longer cancellable (status=queued)", `/triggers/${id}`, "60-cancel-refused");
    await waitText(page.locator(".detail-head .badge"), "Queued");
  }, T);

  it("a refused Replay now and Retry now keep their message too", async () => {
    const completed = await seedTrigger(api, api.projectId, { status: "completed", title: "Replayed too late", attempts: 1 });
    await page.goto(dashboard(`/triggers/${completed}`));
    await meanwhile("POST", `/triggers/${completed}/replay`, () => setStatus(completed, "cancelled"));
    await page.getByRole("button", { name: "Replay now" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Replay now" }).click();
    await staysUntilDismissed("Replay now failed: Trigger cannot be replayed (status=cancelled)", `/triggers/${completed}`);

    const retrying = await seedTrigger(api, api.projectId, { status: "retrying", title: "Retried too late", attempts: 1 });
    await page.goto(dashboard(`/triggers/${retrying}`));
    await meanwhile("POST", `/triggers/${retrying}/retry`, () => setStatus(retrying, "cancelled"));
    await page.getByRole("button", { name: "Retry now" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Retry now" }).click();
    await staysUntilDismissed("Retry now failed: Trigger cannot be retried (status=cancelled)", `/triggers/${retrying}`);
  }, T);

  it("a refused Replay now on Dead letters is not wiped by the list's refresh", async () => {
    const id = await seedTrigger(api, api.projectId, { status: "completed", title: "Dead and gone", attempts: 1 });
    const failed = new Date(Date.now() - 60_000);
    await seedExecution(api, api.projectId, id, { attemptNumber: 1, plannedAt: failed, startedAt: failed, completedAt: failed, responseStatus: 500, isDeadLetter: true });
    await page.goto(dashboard("/dead-letters"));
    const row = page.locator(`[data-testid=dead-letter-row][data-trigger="${id}"]`);
    await waitText(row, "Completed");
    await meanwhile("POST", `/triggers/${id}/replay`, () => setStatus(id, "cancelled"));
    await row.getByRole("button", { name: "Replay now" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Replay now" }).click();
    await staysUntilDismissed("Replay now failed: Trigger cannot be replayed (status=cancelled)", "/executions");
  }, T);

  it("a refused Pause and Delete on Tag policies keep their message through the next refresh", async () => {
    const make = async (tag: string) => {
      const res = await api.call("POST", "/tag-policies", key(), JSON.stringify({ tag, maxConcurrent: 1 }));
      expect(res.status, res.text).toBe(200);
      return res.json().tagPolicy.id as string;
    };
    const remove = (id: string) => api.call("DELETE", `/tag-policies/${id}`, { "ttr-api-key": api.apiKey });
    const paused = await make("paused-elsewhere");
    const deleted = await make("deleted-elsewhere");
    await page.goto(dashboard("/tag-policies"));
    const card = (tag: string) => page.locator(`[data-testid=policy][data-tag="${tag}"]`);
    await card("deleted-elsewhere").waitFor();

    await meanwhile("PUT", `/tag-policies/${paused}`, () => remove(paused));
    await card("paused-elsewhere").getByRole("button", { name: "Pause paused-elsewhere" }).click();
    await staysUntilDismissed("Pausing “paused-elsewhere” failed: Tag policy not found", "/tag-policies");
    await card("paused-elsewhere").waitFor({ state: "detached" });

    await meanwhile("DELETE", `/tag-policies/${deleted}`, () => remove(deleted));
    await card("deleted-elsewhere").getByRole("button", { name: "Delete deleted-elsewhere" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Delete policy" }).click();
    await staysUntilDismissed("Deleting “deleted-elsewhere” failed: Tag policy not found", "/tag-policies");
    expect(browser.problems).toEqual([]);
  }, T);

  it("New policy for a tag that already has one is refused at the Tag field, pointing to Edit, and nothing is sent", async () => {
    const res = await api.call("POST", "/tag-policies", key(), JSON.stringify({ tag: "has-one", maxConcurrent: 2, paused: true }));
    expect(res.status, res.text).toBe(200);
    const posts = recordCalls(page, ["POST"]);
    await page.goto(dashboard("/tag-policies"));
    await page.locator('[data-testid=policy][data-tag="has-one"]').waitFor();
    await page.getByRole("button", { name: "New policy" }).click();
    const form = page.locator("form.policy-form");
    await form.getByLabel("Tag", { exact: true }).fill("has-one");
    await form.getByLabel("Max concurrent").fill("9");
    await form.getByRole("button", { name: "Create policy" }).click();
    await waitText(form.locator("#p-tag-error"), "“has-one” already has a policy: use Edit on it");
    await page.waitForFunction(() => document.activeElement?.id === "p-tag");
    expect(await form.getByLabel("Tag", { exact: true }).getAttribute("aria-invalid")).toBe("true");
    await page.waitForTimeout(300);
    expect(posts.filter((c) => c.path === "/tag-policies")).toEqual([]);
    const after = await api.call("GET", "/tag-policies", { "ttr-api-key": api.apiKey });
    expect(after.json().tagPolicies.find((p: { tag: string }) => p.tag === "has-one")).toMatchObject({ maxConcurrent: 2, paused: true });
  }, T);

  it("a trigger sent while its Edit form is open keeps the form and what was typed, and says it can no longer be edited", async () => {
    const id = await seedTrigger(api, api.projectId, { title: "Edited too late" });
    await page.goto(dashboard(`/triggers/${id}`));
    await page.getByRole("button", { name: "Edit" }).click();
    const form = page.locator("form.trigger-form");
    await form.getByLabel("Title").fill("Typed meanwhile");
    await setStatus(id, "queued");
    await waitText(page.locator(".detail-head .badge"), "Queued", 15_000);
    await waitText(page.getByTestId("edit-gone"), "this trigger became Queued (it is about to be sent): it can no longer be edited");
    expect(await form.getByLabel("Title").inputValue()).toBe("Typed meanwhile");
    await form.getByRole("button", { name: "Save changes" }).click();
    await form.locator(".field-error, #t-form-error").first().waitFor();
    const stored = await api.call("GET", `/triggers/${id}`, { "ttr-api-key": api.apiKey });
    expect(stored.json().trigger).toMatchObject({ status: "queued", title: "Edited too late" });
    await form.getByRole("button", { name: "Discard" }).click();
    await form.waitFor({ state: "detached" });
    await page.getByTestId("edit-gone").waitFor({ state: "detached" });
  }, T);

  it("an unknown time zone is shown at the Time zone field, and the preview says the zone is unknown", async () => {
    await page.goto(dashboard("/triggers"));
    await page.getByRole("button", { name: "New trigger" }).click();
    const form = page.locator("form.trigger-form");
    await form.getByLabel("URL").fill("https://example.com/mars");
    await form.getByLabel("Recurring, on a cron schedule").check();
    await form.getByLabel("Cron expression").fill("0 9 * * *");
    await form.getByLabel("Time zone").fill("Mars/Olympus");
    await waitText(form.locator("#t-cronExpr-hint"), "Unknown time zone “Mars/Olympus”");
    await page.getByRole("button", { name: "Create trigger" }).click();
    await waitText(form.locator("#t-tz-error"), 'Invalid cron expression: unknown time zone "Mars/Olympus"');
    await page.waitForFunction(() => document.activeElement?.id === "t-tz");
    expect(await form.getByLabel("Time zone").getAttribute("aria-invalid")).toBe("true");
    expect(await form.locator("#t-cronExpr-error").count()).toBe(0);
    expect(await form.getByLabel("Cron expression").getAttribute("aria-invalid")).toBeNull();

    // A zone it knows brings the runs back.
    await form.getByLabel("Time zone").fill("Europe/Berlin");
    await waitText(form.locator("#t-cronExpr-hint"), /Next: /);
    await browser.screenshot("61-unknown-time-zone");
  }, T);
});
