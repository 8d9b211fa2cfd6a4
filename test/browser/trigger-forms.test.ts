// Creating, editing and cancelling triggers from the dashboard, in a real
// browser against the whole system (docs/dashboard.md): a one-shot made with
// the New trigger form reaches a real target at its time with its method,
// headers and body; an API refusal shows at its field; a recurring trigger
// is made, edited from its pre-filled form and cancelled after a
// confirmation; a one-shot is edited and cancelled too; the cron preview
// shows runs for five fields only, and names the right days for a step in
// day of week. Every check ends in
// what the page sent, what the API and the database hold, or what the
// target received.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { instancesOf } from "../support/rows.js";
import type { System } from "../support/system.js";
import type { Target } from "../support/target.js";
import { axeViolations, type Browser, berlinLocal, type SentCall, type SignedInDashboard, signedInDashboard, waitText } from "./browser.js";

let sys: System;
let target: Target;
let browser: Browser;
let page: Page;
/** The page's POST, PUT and DELETE calls, in order. */
let sent: SentCall[] = [];
let dashboardUnderTest: SignedInDashboard | undefined;

beforeAll(async () => {
  dashboardUnderTest = await signedInDashboard("forms", ["POST", "PUT", "DELETE"]);
  ({ sys, target, browser, page, sent } = dashboardUnderTest);
}, 90_000);

afterAll(() => dashboardUnderTest?.close());

const T = 60_000;
const dashboard = (p = "") => `${sys.base}/dashboard${p}`;

async function stored(id: string): Promise<Record<string, any>> {
  const res = await sys.call("GET", `/triggers/${id}`, { "ttr-api-key": sys.apiKey });
  expect(res.status, res.text).toBe(200);
  return res.json().trigger;
}

/** The trigger ID of the page now showing (…/dashboard/triggers/<id>). */
async function shownId(): Promise<string> {
  await page.waitForURL(/\/dashboard\/triggers\/[0-9a-f-]{36}$/);
  return page.url().split("/").at(-1)!;
}

async function checkAxe(name: string): Promise<void> {
  expect(await axeViolations(page), name).toEqual([]);
}

const form = () => page.locator("form.trigger-form");

describe("creating, editing and cancelling triggers in the dashboard", () => {
  it("New trigger: a refusal shows at its field; the one-shot it then creates reaches the target at its time", async () => {
    await page.goto(dashboard("/triggers"));
    await page.getByRole("button", { name: "New trigger" }).click();
    await form().getByRole("heading", { name: "New trigger" }).waitFor();
    await page.waitForFunction(() => document.activeElement?.id === "t-url");

    await form().getByLabel("URL").fill("not a url");
    await page.getByRole("button", { name: "Create trigger" }).click();
    const urlError = form().locator("#t-url-error");
    await waitText(urlError, "Invalid URL: not a url");
    expect(await form().getByLabel("URL").getAttribute("aria-invalid")).toBe("true");
    await page.waitForFunction(() => document.activeElement?.id === "t-url");
    expect(sent.at(-1)).toMatchObject({ method: "POST", path: "/triggers" });
    await checkAxe("the New trigger form with an error");
    await browser.screenshot("30-new-trigger-error");

    const at = new Date(Math.ceil((Date.now() + 6000) / 1000) * 1000);
    await form().getByLabel("URL").fill(`${target.base}/once?from=form`);
    await form().getByLabel("Method").selectOption("PUT");
    await page.getByRole("button", { name: "Add header" }).click();
    await page.locator("#t-header-name-0").fill("X-From");
    await page.locator("#t-header-value-0").fill("dashboard");
    await form().getByLabel("Body").fill('{"hello":"form"}');
    await form().getByLabel(/^Date and time/).fill(berlinLocal(at, true));
    await form().getByLabel(/^If this time has passed/).check();
    await form().getByLabel("Tags").fill("forms, eu");
    await form().getByLabel("Title").fill("Made with the form");
    await page.getByRole("button", { name: "Create trigger" }).click();

    const id = await shownId();
    await page.getByRole("heading", { level: 1, name: "Made with the form" }).waitFor();
    await waitText(page.getByRole("status"), "Trigger created.");
    expect(sent.at(-1)).toEqual({
      method: "POST",
      path: "/triggers",
      body: {
        url: `${target.base}/once?from=form`,
        method: "PUT",
        headers: { "X-From": "dashboard" },
        body: '{"hello":"form"}',
        scheduledAt: at.toISOString(),
        customKey: null,
        tags: ["forms", "eu"],
        title: "Made with the form",
        runMissed: true,
      },
    });
    expect(await stored(id)).toMatchObject({ kind: "job", method: "PUT", tags: ["forms", "eu"], scheduledAt: at.toISOString() });

    const [hit] = await target.waitFor("/once", 1, 20_000);
    expect(hit!.at).toBeGreaterThanOrEqual(at.getTime());
    expect(hit!.method).toBe("PUT");
    expect(hit!.url).toBe("/once?from=form");
    expect(hit!.headers["x-from"]).toBe("dashboard");
    expect(hit!.body.toString()).toBe('{"hello":"form"}');
    await waitText(page.locator(".badge"), "Completed");
    await browser.screenshot("31-created-and-sent");
  }, T);

  let recurring = "";

  it("New trigger, recurring: cron and time zone, its next runs shown on its page", async () => {
    await page.goto(dashboard("/triggers"));
    await page.getByRole("button", { name: "New trigger" }).click();
    await form().getByLabel("URL").fill(`${target.base}/daily`);
    await form().getByLabel("Method").selectOption("GET");
    expect(await form().getByLabel("Body").isDisabled()).toBe(true);
    await form().getByLabel("Recurring, on a cron schedule").check();
    expect(await form().getByLabel("Title").count()).toBe(0);
    await form().getByLabel("Cron expression").fill("0 12 * * *");
    await form().getByLabel("Time zone").fill("America/New_York");
    await waitText(form().locator("#t-cronExpr-hint"), /Next: /);
    await form().getByLabel("Custom key").fill("daily-noon");
    await page.getByRole("button", { name: "Create trigger" }).click();

    recurring = await shownId();
    await waitText(page.getByRole("status"), "Recurring trigger created.");
    expect(sent.at(-1)).toMatchObject({ method: "POST", path: "/triggers", body: { scheduledAt: "cron(0 12 * * *, America/New_York)", customKey: "daily-noon" } });
    expect(await stored(recurring)).toMatchObject({ kind: "generator", status: "active", cronExpr: "0 12 * * *", tz: "America/New_York", customKey: "daily-noon" });
    await page.getByRole("heading", { name: "Next 10 runs" }).waitFor();
    await waitText(page.getByTestId("next-runs").locator("tbody tr").first(), /12:00:00/);
  }, T);

  it("Edit on a recurring trigger: pre-filled, saved with a new cron and zone, its pending instance replaced", async () => {
    const [before] = await instancesOf(sys.db, recurring);
    await page.getByRole("button", { name: "Edit", exact: true }).click();
    await form().getByRole("heading", { name: "Edit recurring trigger" }).waitFor();
    expect(await form().getByLabel("URL").inputValue()).toBe(`${target.base}/daily`);
    expect(await form().getByLabel("Cron expression").inputValue()).toBe("0 12 * * *");
    expect(await form().getByLabel("Time zone").inputValue()).toBe("America/New_York");
    expect(await form().getByLabel("Custom key").inputValue()).toBe("daily-noon");
    expect(await form().getByLabel("Once, at a date and time").count()).toBe(0);
    await checkAxe("the Edit form");

    await form().getByLabel("Cron expression").fill("30 6 * * 1-5");
    await form().getByLabel("Time zone").fill("Asia/Tokyo");
    await form().getByLabel("Tags").fill("nightly");
    await page.getByRole("button", { name: "Save changes" }).click();
    await waitText(page.getByRole("status"), "Changes saved. The next run is");
    expect(sent.at(-1)).toMatchObject({ method: "PUT", path: `/triggers/${recurring}`, body: { scheduledAt: "cron(30 6 * * 1-5, Asia/Tokyo)", tags: ["nightly"], customKey: "daily-noon" } });
    expect(await stored(recurring)).toMatchObject({ status: "active", cronExpr: "30 6 * * 1-5", tz: "Asia/Tokyo", tags: ["nightly"], url: `${target.base}/daily` });
    const instances = await instancesOf(sys.db, recurring);
    expect(instances.find((i) => i.id === before!.id)?.status).toBe("cancelled");
    const pending = instances.filter((i) => i.status === "registered");
    expect(pending).toHaveLength(1);
    // 06:30 in Tokyo (UTC+9, no daylight saving) is 21:30 UTC the day before.
    expect(pending[0]!.scheduledAt.toISOString()).toMatch(/T21:30:00\.000Z$/);
    await waitText(page.getByTestId("next-runs").locator("tbody tr").first(), /06:30:00/);
    // The instance list reloads with the save, not only on its next refresh.
    await waitText(page.locator(`[data-testid=trigger-row][data-id="${before!.id}"] .badge`), "Cancelled", 3000);
    expect(await form().count()).toBe(0);
    await browser.screenshot("32-recurring-edited");
  }, T);

  it("Cancel trigger asks first: Keep it changes nothing, then the recurring trigger is cancelled", async () => {
    await page.getByRole("button", { name: "Cancel trigger" }).click();
    const dialog = page.getByRole("dialog", { name: "Cancel this recurring trigger?" });
    await dialog.waitFor();
    await checkAxe("the cancel confirmation");
    await dialog.getByRole("button", { name: "Keep it" }).click();
    await dialog.waitFor({ state: "hidden" });
    expect((await stored(recurring)).status).toBe("active");
    expect(sent.some((s) => s.method === "DELETE")).toBe(false);

    await page.getByRole("button", { name: "Cancel trigger" }).click();
    await dialog.getByRole("button", { name: "Cancel trigger" }).click();
    await waitText(page.getByRole("status"), "Trigger cancelled.");
    expect(sent.at(-1)).toEqual({ method: "DELETE", path: `/triggers/${recurring}`, body: null });
    expect((await stored(recurring)).status).toBe("cancelled");
    expect((await instancesOf(sys.db, recurring)).every((i) => i.status === "cancelled")).toBe(true);
    await waitText(page.locator(".badge"), "Cancelled");
    expect(await page.getByRole("button", { name: "Cancel trigger" }).count()).toBe(0);
    expect(await page.getByRole("button", { name: "Edit", exact: true }).count()).toBe(0);
  }, T);

  it("Edit and cancel a one-shot: its date shows in the viewer's time, and the new one is what is stored", async () => {
    const made = await sys.call(
      "POST",
      "/schedule",
      { "ttr-api-key": sys.apiKey, "ttr-url": `${target.base}/later`, "ttr-scheduled-at": "2099-03-01T10:00:00Z", "ttr-title": "Later", "X-Keep": "1" },
      "payload",
    );
    expect(made.status, made.text).toBe(200);
    const id = made.json().triggerId as string;
    await page.goto(dashboard(`/triggers/${id}`));
    await page.getByRole("button", { name: "Edit", exact: true }).click();
    // 10:00 UTC on 1 March is 11:00 in Berlin (standard time); the input drops zero seconds.
    expect(await form().getByLabel(/^Date and time/).inputValue()).toBe("2099-03-01T11:00");
    expect(await form().getByLabel("Title").inputValue()).toBe("Later");
    expect(await page.locator("#t-header-name-0").inputValue()).toBe("X-Keep");
    expect(await form().getByLabel("Body").inputValue()).toBe("payload");

    await form().getByLabel(/^Date and time/).fill("2099-07-01T09:15:00");
    await form().getByLabel("Title").fill("Later, edited");
    await page.getByRole("button", { name: "Save changes" }).click();
    // 09:15 in Berlin in July (summer time, UTC+2) is 07:15 UTC.
    await waitText(page.getByRole("status"), "Changes saved. It is sent at 2099-07-01 07:15:00 UTC.");
    await page.getByRole("heading", { level: 1, name: "Later, edited" }).waitFor();
    expect(await stored(id)).toMatchObject({ status: "registered", scheduledAt: "2099-07-01T07:15:00.000Z", title: "Later, edited", body: "payload", headers: { "X-Keep": "1" } });

    await page.getByRole("button", { name: "Cancel trigger" }).click();
    await page.getByRole("dialog", { name: "Cancel this trigger?" }).getByRole("button", { name: "Cancel trigger" }).click();
    await waitText(page.getByRole("status"), "Trigger cancelled.");
    expect((await stored(id)).status).toBe("cancelled");
    await browser.screenshot("33-one-shot-cancelled");
    expect(target.hits("/later")).toHaveLength(0);
    expect(browser.problems).toEqual([]);
  }, T);

  it("a body that is not UTF-8 text (a /bulk base64 item) is not offered for editing, so saving cannot change its bytes; Cancel still is", async () => {
    const made = await sys.call(
      "POST",
      "/bulk",
      { "ttr-api-key": sys.apiKey, "content-type": "application/json" },
      JSON.stringify({ upserts: [{ customKey: "binary-body", url: `${target.base}/binary`, method: "POST", scheduledAt: "2099-03-01T10:00:00Z", body: { _tag: "base64", value: "/wD+" } }] }),
    );
    expect(made.status, made.text).toBe(200);
    const id = made.json().upserts[0].id as string;
    await page.goto(dashboard(`/triggers/${id}`));
    await waitText(page.locator(".actions.manage"), "not UTF-8 text");
    expect(await page.getByRole("button", { name: "Edit", exact: true }).count()).toBe(0);
    expect(await page.getByRole("button", { name: "Cancel trigger" }).count()).toBe(1);
    // the stored bytes are untouched
    const [row] = await sys.db.$queryRawUnsafe<Array<{ body: Uint8Array }>>("SELECT body FROM triggers WHERE id = $1::uuid", id);
    expect(Buffer.from(row!.body).toString("hex")).toBe("ff00fe");
    expect(browser.problems).toEqual([]);
  }, T);

  it("a GET item with a body (/bulk) is not offered for editing either: the form has no body for GET, and saving would drop it", async () => {
    const made = await sys.call(
      "POST",
      "/bulk",
      { "ttr-api-key": sys.apiKey, "content-type": "application/json" },
      JSON.stringify({ upserts: [{ customKey: "get-body", url: `${target.base}/get-body`, method: "GET", scheduledAt: "2099-03-01T10:00:00Z", body: { _tag: "text", value: "q=1" } }] }),
    );
    expect(made.status, made.text).toBe(200);
    await page.goto(dashboard(`/triggers/${made.json().upserts[0].id}`));
    await waitText(page.locator(".actions.manage"), "Its GET request carries a body");
    expect(await page.getByRole("button", { name: "Edit", exact: true }).count()).toBe(0);
  }, T);

  it("Edit of a one-shot in the hour repeated when summer time ends keeps its instant when the time is not changed", async () => {
    // 01:30 UTC on 27 October 2030 is the second 02:30 of that night in Berlin
    const made = await sys.call("POST", "/schedule", { "ttr-api-key": sys.apiKey, "ttr-url": `${target.base}/repeated-hour`, "ttr-scheduled-at": "2030-10-27T01:30:00Z" });
    expect(made.status, made.text).toBe(200);
    const id = made.json().triggerId as string;
    await page.goto(dashboard(`/triggers/${id}`));
    await page.getByRole("button", { name: "Edit", exact: true }).click();
    expect(await form().getByLabel(/^Date and time/).inputValue()).toBe("2030-10-27T02:30");
    await form().getByLabel("URL").fill(`${target.base}/repeated-hour-2`);
    await page.getByRole("button", { name: "Save changes" }).click();
    await waitText(page.getByRole("status"), "Changes saved.");
    expect(await stored(id)).toMatchObject({ url: `${target.base}/repeated-hour-2`, scheduledAt: "2030-10-27T01:30:00.000Z" });
  }, T);

  it("the cron preview asks for five fields when there are six, and names the days of a day-of-week step rightly", async () => {
    await page.goto(dashboard("/triggers"));
    await page.getByRole("button", { name: "New trigger" }).click();
    await form().getByLabel("Recurring, on a cron schedule").check();
    const hint = form().locator("#t-cronExpr-hint");
    const preview = async (expr: string, text: string) => {
      await form().getByLabel("Cron expression").fill(expr);
      await waitText(hint, text, 5000);
      return hint.textContent();
    };
    // cron-parser reads six fields (seconds first); the API refuses them
    expect(await preview("0 0 12 * * *", "Five fields expected")).not.toContain("Next:");
    // day of week runs to 7: 5/2 is Friday and Sunday, MON/2 Monday, Wednesday, Friday and Sunday
    expect(await preview("0 0 * * 5/2", "Friday through Sunday")).not.toContain("Saturday");
    await preview("0 0 * * MON/2", "Monday through Sunday");
    await preview("0 9 * * 1-5", "Monday through Friday");
    await form().getByRole("button", { name: "Discard" }).click();
  }, T);
});
