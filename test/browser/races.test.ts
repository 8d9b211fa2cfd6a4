// What the person sees when the dashboard's own refreshes and their actions
// overlap, in a real browser on rows written straight to the tables (the api
// alone). A timed refresh is made to answer late by holding its answer on
// the way (page.route): the server has answered, the page has not seen it.
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import type { TestApi } from "../support/api.js";
import { seedExecution, seedTrigger } from "../support/session.js";
import { holdRefresh, useSignedInApi, waitText } from "./browser.js";

let api: TestApi;
let page: Page;
useSignedInApi("races", (a, b) => {
  api = a;
  page = b.page;
});
const T = 90_000;
const dashboard = (p = "") => `${api.base}/dashboard${p}`;
const key = () => ({ "ttr-api-key": api.apiKey, "Content-Type": "application/json" });

/** Holds the answer of the next timed refresh of `path` matching `pick`, as the server gave it. */
const holdAnswer = (path: string, pick: (url: URL) => boolean = () => true) => holdRefresh(page, (url) => url.pathname === path && pick(url), { answered: true });

/** The id of the focused element, "BODY" when focus fell to the page. */
const focusedId = () => page.evaluate(() => (document.activeElement === document.body ? "BODY" : document.activeElement?.id ?? ""));

async function completedTrigger(title: string): Promise<string> {
  const id = await seedTrigger(api, api.projectId, { status: "completed", title, attempts: 1 });
  const at = new Date(Date.now() - 60_000);
  await seedExecution(api, api.projectId, id, { attemptNumber: 1, plannedAt: at, startedAt: at, completedAt: at, responseStatus: 500 });
  return id;
}

describe("a refresh answered before an action but arriving after it", () => {
  it("does not show a paused policy unpaused again", async () => {
    const r = await api.call("POST", "/tag-policies", key(), JSON.stringify({ tag: "race-pause", maxConcurrent: 1 }));
    expect(r.status).toBe(200);
    await page.goto(dashboard("/tag-policies"));
    const card = page.locator('[data-testid=policy][data-tag="race-pause"]');
    await card.waitFor();
    const held = await holdAnswer("/tag-policies");
    await held.sent;
    await card.getByRole("button", { name: "Pause race-pause" }).click();
    await waitText(page.getByRole("status"), "is paused");
    await card.getByRole("button", { name: "Resume race-pause" }).waitFor();
    held.release();
    await page.waitForTimeout(800);
    expect(await card.getAttribute("data-paused")).toBe("true");
    expect(await card.getByRole("button", { name: "Pause race-pause" }).count()).toBe(0);
    await held.stop();
  }, T);

  it("does not offer Replay now again on a trigger just replayed", async () => {
    const id = await completedTrigger("Race replay");
    await page.goto(dashboard(`/triggers/${id}`));
    const replay = page.getByRole("button", { name: "Replay now" });
    await replay.waitFor();
    const held = await holdAnswer(`/triggers/${id}`);
    await held.sent;
    await replay.click();
    await page.getByRole("dialog").getByRole("button", { name: "Replay now" }).click();
    await waitText(page.getByRole("status"), "is queued");
    await page.waitForFunction(() => (document.querySelector(".detail-head .actions button") as HTMLButtonElement | null)?.disabled === true);
    held.release();
    await page.waitForTimeout(800);
    expect(await replay.isDisabled()).toBe(true);
    expect(await page.locator(".detail-head .badge").first().textContent()).not.toMatch(/completed/i);
    await held.stop();
  }, T);

  it("does not put dead letters back on the list after a bulk Discard", async () => {
    const failed = Date.now() - 3600_000;
    for (let i = 0; i < 3; i++) {
      const id = await seedTrigger(api, api.projectId, { status: "completed", title: `Race dead ${i}`, tags: ["race-dead"], attempts: 1 });
      const at = new Date(failed - i * 1000);
      await seedExecution(api, api.projectId, id, { attemptNumber: 1, plannedAt: at, startedAt: at, completedAt: at, responseStatus: 500, isDeadLetter: true });
    }
    await page.goto(dashboard("/dead-letters"));
    const rows = page.locator("[data-testid=dead-letter-row]");
    await waitText(rows, "Race dead 2");
    const held = await holdAnswer("/executions");
    await held.sent;
    await page.getByLabel("Tag").fill("race-dead");
    await page.getByRole("button", { name: "Discard…" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Confirm" }).click();
    await waitText(page.getByRole("status"), "3 dead letters discarded");
    await page.waitForFunction(() => !document.body.textContent?.includes("Race dead"));
    held.release();
    await page.waitForTimeout(800);
    expect(await rows.filter({ hasText: "Race dead" }).count()).toBe(0);
    await held.stop();
  }, T);
});

describe("Load more while a refresh is out, with rows created at the top meanwhile", () => {
  it("keeps every row at the page boundary", async () => {
    const old: string[] = [];
    for (let i = 0; i < 120; i++) old.push(await seedTrigger(api, api.projectId, { title: `Edge ${i}`, tags: ["edge"], createdAt: new Date(Date.now() - 10_000 - i * 1000) }));
    await page.goto(dashboard("/triggers?tag=edge"));
    const rows = page.locator("[data-testid=trigger-row]");
    await rows.first().waitFor();
    const fresh: string[] = [];
    for (let i = 0; i < 3; i++) fresh.unshift(await seedTrigger(api, api.projectId, { title: `Edge new ${i}`, tags: ["edge"], createdAt: new Date(Date.now() - 3 + i) }));
    const held = await holdAnswer("/triggers", (u) => !u.searchParams.has("cursor"));
    await held.sent;
    await page.getByRole("button", { name: "Load more" }).click();
    await page.waitForFunction(() => document.querySelectorAll("[data-testid=trigger-row]").length === 100);
    held.release();
    await page.waitForFunction(() => document.querySelectorAll("[data-testid=trigger-row]").length !== 100, undefined, { timeout: 5000 }).catch(() => undefined);
    const shown = await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-id") ?? ""));
    expect(shown).toEqual([...fresh, ...old.slice(0, 100)]);
    await held.stop();
  }, T);
});

describe("Edit and Cancel trigger together", () => {
  it("a refused Cancel trigger keeps the open Edit form and what was typed", async () => {
    const id = await seedTrigger(api, api.projectId, { title: "Race cancel" });
    await page.goto(dashboard(`/triggers/${id}`));
    await page.getByRole("button", { name: "Edit" }).click();
    const form = page.locator("form.trigger-form");
    await form.getByLabel("Title").fill("typed meanwhile");
    // Another client cancels it before the page has refreshed.
    expect((await api.call("DELETE", `/triggers/${id}`, { "ttr-api-key": api.apiKey })).status).toBeLessThan(300);
    await page.getByRole("button", { name: "Cancel trigger" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Cancel trigger" }).click();
    await waitText(page.getByRole("alert"), "Cancelling failed");
    await page.waitForTimeout(300);
    expect(await form.count()).toBe(1);
    expect(await form.getByLabel("Title").inputValue()).toBe("typed meanwhile");
  }, T);
});

describe("focus when the control to return to is gone", () => {
  it("goes to the main region after Replay now is confirmed (the button is then disabled)", async () => {
    const id = await completedTrigger("Focus replay");
    await page.goto(dashboard(`/triggers/${id}`));
    const replay = page.getByRole("button", { name: "Replay now" });
    await replay.focus();
    await page.keyboard.press("Enter");
    const dialog = page.getByRole("dialog");
    await dialog.getByRole("button", { name: "Replay now" }).click();
    await dialog.waitFor({ state: "detached" });
    await page.waitForTimeout(300);
    expect(await replay.isDisabled()).toBe(true);
    expect(await focusedId()).toBe("main");
  }, T);

  it("goes to the main region after Delete policy removes the card", async () => {
    const r = await api.call("POST", "/tag-policies", key(), JSON.stringify({ tag: "race-delete", maxConcurrent: 1 }));
    expect(r.status).toBe(200);
    await page.goto(dashboard("/tag-policies"));
    const card = page.locator('[data-testid=policy][data-tag="race-delete"]');
    await card.getByRole("button", { name: "Delete race-delete" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByRole("button", { name: "Delete policy" }).click();
    await dialog.waitFor({ state: "detached" });
    await card.waitFor({ state: "detached" });
    await page.waitForTimeout(300);
    expect(await focusedId()).toBe("main");
  }, T);

  it("goes to the main region after Discard of an Edit form whose trigger was sent meanwhile", async () => {
    const id = await seedTrigger(api, api.projectId, { title: "Focus discard" });
    await page.goto(dashboard(`/triggers/${id}`));
    await page.getByRole("button", { name: "Edit" }).click();
    const form = page.locator("form.trigger-form");
    await form.getByLabel("Title").fill("typed");
    await api.db.$executeRawUnsafe("UPDATE triggers SET status = 'completed' WHERE id = $1::uuid", id);
    await page.getByTestId("edit-gone").waitFor({ timeout: 10_000 });
    await form.getByRole("button", { name: "Discard" }).focus();
    await page.keyboard.press("Enter");
    await form.waitFor({ state: "detached" });
    await page.waitForTimeout(300);
    expect(await focusedId()).toBe("main");
  }, T);
});
