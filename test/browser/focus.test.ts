// Where keyboard focus goes in the dashboard, in a real browser on rows
// written straight to the tables (the api alone): a confirmation dialog
// gives focus back to the button that opened it, however it closes
// (Escape, Cancel, Confirm), and Pause or Resume on a policy keeps focus on
// its button while the call is out, rather than dropping it to the page.
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import type { TestApi } from "../support/api.js";
import { seedExecution, seedTrigger } from "../support/session.js";
import { type Browser, useSignedInApi, waitText } from "./browser.js";

let api: TestApi;
let browser: Browser;
let page: Page;
useSignedInApi("focus", (a, b) => {
  api = a;
  browser = b;
  page = b.page;
});
const T = 60_000;
const dashboard = (p = "") => `${api.base}/dashboard${p}`;
const key = () => ({ "ttr-api-key": api.apiKey, "Content-Type": "application/json" });

/** The focused element's text and tag, e.g. "BUTTON Replay now". */
const focused = () => page.evaluate(() => `${document.activeElement?.tagName} ${document.activeElement?.textContent?.trim()}`);

/** Opens the dialog with `opener`, closes it with `close`, and expects focus back on `opener`. */
async function returnsFocus(opener: ReturnType<Page["getByRole"]>, close: (dialog: ReturnType<Page["getByRole"]>) => Promise<void>): Promise<void> {
  await opener.focus();
  await opener.click();
  const dialog = page.getByRole("dialog");
  await dialog.waitFor();
  await close(dialog);
  await dialog.waitFor({ state: "detached" });
  const name = (await opener.textContent())?.trim();
  await page.waitForFunction((text) => document.activeElement?.textContent?.trim() === text, name, { timeout: 5000 }).catch(() => undefined);
  expect(await focused()).toBe(`BUTTON ${name}`);
}

const pressEscape = () => page.keyboard.press("Escape");
const button = (name: string) => (dialog: ReturnType<Page["getByRole"]>) => dialog.getByRole("button", { name, exact: true }).click();

describe("focus after a confirmation dialog", () => {
  it("goes back to Replay now and Cancel trigger on a trigger's page after Escape, Cancel or Keep it", async () => {
    const done = await seedTrigger(api, api.projectId, { status: "completed", title: "Replay focus", attempts: 1 });
    await page.goto(dashboard(`/triggers/${done}`));
    const replay = page.getByRole("button", { name: "Replay now" });
    await returnsFocus(replay, pressEscape);
    await returnsFocus(replay, button("Cancel"));

    const waiting = await seedTrigger(api, api.projectId, { title: "Cancel focus" });
    await page.goto(dashboard(`/triggers/${waiting}`));
    await returnsFocus(page.getByRole("button", { name: "Cancel trigger" }), button("Keep it"));
  }, T);

  it("goes back to Delete on Tag policies, to Replay now on Dead letters, and to Replay… after a bulk Confirm", async () => {
    const res = await api.call("POST", "/tag-policies", key(), JSON.stringify({ tag: "focus-kept", maxConcurrent: 1 }));
    expect(res.status, res.text).toBe(200);
    await page.goto(dashboard("/tag-policies"));
    await returnsFocus(page.getByRole("button", { name: "Delete focus-kept" }), pressEscape);

    const id = await seedTrigger(api, api.projectId, { status: "completed", title: "Dead focus", attempts: 1 });
    const failed = new Date(Date.now() - 60_000);
    await seedExecution(api, api.projectId, id, { attemptNumber: 1, plannedAt: failed, startedAt: failed, completedAt: failed, responseStatus: 500, isDeadLetter: true });
    await page.goto(dashboard("/dead-letters"));
    const row = page.locator(`[data-testid=dead-letter-row][data-trigger="${id}"]`);
    await waitText(row, "Completed");
    await returnsFocus(row.getByRole("button", { name: "Replay now" }), button("Cancel"));

    await returnsFocus(page.getByRole("button", { name: "Discard…" }), button("Confirm"));
    await waitText(page.getByRole("status"), "1 dead letter discarded");
  }, T);

  it("stays on Pause while the call is out, and on the button (now Resume) after", async () => {
    const res = await api.call("POST", "/tag-policies", key(), JSON.stringify({ tag: "focus-pause", maxConcurrent: 1 }));
    expect(res.status, res.text).toBe(200);
    const id = res.json().tagPolicy.id as string;
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let arrived = () => {};
    const out = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const thePolicy = (url: URL) => url.pathname === `/tag-policies/${id}`;
    await page.route(
      thePolicy,
      async (route) => {
        arrived();
        await held;
        await route.continue();
      },
    );
    await page.goto(dashboard("/tag-policies"));
    const pause = page.getByRole("button", { name: "Pause focus-pause" });
    await pause.focus();
    await page.keyboard.press("Enter");
    await out;
    await page.waitForTimeout(200);
    expect(await focused()).toBe("BUTTON Pause focus-pause");
    release();
    await waitText(page.getByRole("status"), "“focus-pause” is paused");
    await page.getByRole("button", { name: "Resume focus-pause" }).waitFor();
    expect(await focused()).toBe("BUTTON Resume focus-pause");
    await page.unroute(thePolicy);
    expect(browser.problems).toEqual([]);
  }, T);
});
