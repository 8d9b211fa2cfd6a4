// The dashboard's actions for the people receiving requests, in a real
// browser against the whole system: pausing and resuming a tag from its
// policy, and replaying or discarding dead letters in bulk by tag and time
// range, each counted first; a recurring trigger's next runs with their UTC
// offsets; Retry now withheld from a skipped trigger (docs/dashboard.md).
// Every check ends in what the API and the database hold, or in what the
// target received.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { System } from "../support/system.js";
import type { Target } from "../support/target.js";
import { axeViolations, type Browser, berlinLocal, type SentCall, type SignedInDashboard, signedInDashboard, waitText } from "./browser.js";

let sys: System;
let target: Target;
let browser: Browser;
let page: Page;
/** Bodies of the page's POST and PUT calls, by path. */
let sent: SentCall[] = [];
let dashboardUnderTest: SignedInDashboard | undefined;

beforeAll(async () => {
  dashboardUnderTest = await signedInDashboard("actions", ["POST", "PUT"], (t) => {
    t.on("/held", (_req, res) => res.writeHead(200).end("ok"));
    t.on("/fail", (_req, res) => res.writeHead(500, { "content-type": "text/plain" }).end("down"));
  });
  ({ sys, target, browser, page, sent } = dashboardUnderTest);
}, 90_000);

afterAll(() => dashboardUnderTest?.close());

const T = 60_000;
const dashboard = (p = "") => `${sys.base}/dashboard${p}`;
const key = () => ({ "ttr-api-key": sys.apiKey, "Content-Type": "application/json" });

async function schedule(path: string, tags: string, title: string): Promise<string> {
  const res = await sys.call("POST", "/schedule", { "ttr-api-key": sys.apiKey, "ttr-url": `${target.base}${path}`, "ttr-scheduled-at": "now", "ttr-tags": tags, "ttr-title": title });
  expect(res.status, res.text).toBe(200);
  return res.json().triggerId as string;
}

async function policies(): Promise<Array<Record<string, unknown>>> {
  const res = await sys.call("GET", "/tag-policies", { "ttr-api-key": sys.apiKey });
  expect(res.status).toBe(200);
  return res.json().tagPolicies;
}

async function executions(triggerId: string): Promise<Array<{ attemptNumber: number; triggeredBy: string }>> {
  const res = await sys.call("GET", `/triggers/${triggerId}`, { "ttr-api-key": sys.apiKey });
  expect(res.status).toBe(200);
  return res.json().executions;
}

async function deadLetterTriggers(): Promise<string[]> {
  const res = await sys.call("GET", "/executions?deadLetterOnly=true&limit=100", { "ttr-api-key": sys.apiKey });
  expect(res.status).toBe(200);
  return (res.json().executions as Array<{ triggerId: string }>).map((e) => e.triggerId);
}

const deadRow = (id: string) => page.locator(`[data-testid=dead-letter-row][data-trigger="${id}"]`);

describe("dashboard actions", () => {
  it("pauses a tag from its policy, which holds its triggers, and resumes it, which sends them", async () => {
    const created = await sys.call("POST", "/tag-policies", key(), JSON.stringify({ tag: "billing", maxConcurrent: 5 }));
    expect(created.status, created.text).toBe(200);
    const id = created.json().tagPolicy.id as string;

    await page.goto(dashboard("/tag-policies"));
    const card = page.locator('[data-testid=policy][data-tag="billing"]');
    await card.waitFor();
    expect(await card.locator(".badge").count()).toBe(0);

    await card.getByRole("button", { name: "Pause billing" }).click();
    await waitText(card.locator(".badge"), "Paused");
    await waitText(page.getByRole("status"), "“billing” is paused");
    await card.getByRole("button", { name: "Resume billing" }).waitFor();
    expect(sent.at(-1)).toEqual({ method: "PUT", path: `/tag-policies/${id}`, body: { paused: true } });
    expect((await policies()).find((p) => p.id === id)).toMatchObject({ paused: true, maxConcurrent: 5 });
    const [row] = await sys.db.$queryRawUnsafe<Array<{ paused: boolean }>>("SELECT paused FROM tag_policies WHERE id = $1::uuid", id);
    expect(row!.paused).toBe(true);
    await browser.screenshot("20-policy-paused");

    // While paused the tag's trigger waits as queued and the target hears nothing.
    const held = await schedule("/held", "billing", "Held call");
    await new Promise((r) => setTimeout(r, 3000));
    expect(target.hits("/held")).toHaveLength(0);
    const waiting = await sys.call("GET", `/triggers/${held}`, { "ttr-api-key": sys.apiKey });
    expect(waiting.json().trigger.status).toBe("queued");

    await card.getByRole("button", { name: "Resume billing" }).click();
    await waitText(page.getByRole("status"), "“billing” is resumed");
    await card.getByRole("button", { name: "Pause billing" }).waitFor();
    expect(await card.locator(".badge").count()).toBe(0);
    expect(sent.at(-1)).toEqual({ method: "PUT", path: `/tag-policies/${id}`, body: { paused: false } });
    const after = (await policies()).find((p) => p.id === id);
    expect(after).toMatchObject({ maxConcurrent: 5 });
    expect(after).not.toHaveProperty("paused");
    await target.waitFor("/held", 1);
  }, T);

  let outage: string[] = [];
  let other = "";

  it("replays the dead letters of one tag in bulk after showing how many, and Cancel changes nothing", async () => {
    outage = [await schedule("/fail", "outage", "Outage call 1"), await schedule("/fail", "outage", "Outage call 2")];
    other = await schedule("/fail", "other", "Other call");
    await page.goto(dashboard("/dead-letters"));
    await page.getByRole("heading", { level: 1, name: "Dead letters" }).waitFor();
    for (const id of [...outage, other]) await waitText(deadRow(id), "HTTP 500", 20_000);

    await page.getByLabel("Tag", { exact: true }).fill("outage");
    await page.getByRole("button", { name: "Replay…" }).click();
    const dialog = page.getByRole("dialog", { name: "Replay these dead letters?" });
    await waitText(dialog, "2 dead letters will be replayed");
    expect(sent.at(-1)).toEqual({ method: "POST", path: "/dead-letters/replay", body: { tag: "outage", dryRun: true } });
    await browser.screenshot("21-bulk-replay-confirm");
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await dialog.waitFor({ state: "hidden" });
    expect(target.hits("/fail")).toHaveLength(3);
    for (const id of outage) expect(await executions(id)).toHaveLength(1);

    await page.getByRole("button", { name: "Replay…" }).click();
    await waitText(dialog, "2 dead letters will be replayed");
    await dialog.getByRole("button", { name: "Confirm" }).click();
    await waitText(page.getByRole("status"), "2 dead letters replayed");
    expect(sent.at(-1)).toEqual({ method: "POST", path: "/dead-letters/replay", body: { tag: "outage" } });
    await target.waitFor("/fail", 5);
    for (const id of outage) expect((await executions(id)).map((e) => [e.attemptNumber, e.triggeredBy])).toEqual(expect.arrayContaining([[2, "replay"]]));
    expect(await executions(other)).toHaveLength(1);
    await browser.screenshot("22-bulk-replayed");
  }, T);

  it("discards by tag and time range: the range is sent as instants, refusals show, and the discarded leave the list", async () => {
    const hourAgo = new Date(Math.floor(Date.now() / 60_000) * 60_000 - 3600_000);
    await page.getByLabel("Tag", { exact: true }).fill("other");
    await page.getByLabel("Failed from").fill(berlinLocal(hourAgo));
    await page.getByLabel("Failed before").fill("2020-01-01T00:00");
    await page.getByRole("button", { name: "Discard…" }).click();
    await waitText(page.getByRole("alert"), "from must be before to");
    expect(sent.at(-1)?.body).toEqual({ tag: "other", from: hourAgo.toISOString(), to: new Date("2019-12-31T23:00:00Z").toISOString(), dryRun: true });

    // a range with none in it
    await page.getByLabel("Failed from").fill("2019-01-01T00:00");
    await page.getByRole("button", { name: "Discard…" }).click();
    await waitText(page.getByRole("status"), "No dead letters match, so nothing would be discarded.");
    expect(await page.getByRole("dialog").count()).toBe(0);

    await page.getByLabel("Failed from").fill(berlinLocal(hourAgo));
    await page.getByLabel("Failed before").fill("");
    await page.getByRole("button", { name: "Discard…" }).click();
    const dialog = page.getByRole("dialog", { name: "Discard these dead letters?" });
    await waitText(dialog, "1 dead letter will be discarded");
    await dialog.getByRole("button", { name: "Confirm" }).click();
    await waitText(page.getByRole("status"), "1 dead letter discarded");
    expect(sent.at(-1)).toEqual({ method: "POST", path: "/dead-letters/discard", body: { tag: "other", from: hourAgo.toISOString() } });
    await deadRow(other).waitFor({ state: "detached" });
    const left = await deadLetterTriggers();
    expect(left).not.toContain(other);
    for (const id of outage) expect(left).toContain(id);
    const [discarded] = await sys.db.$queryRawUnsafe<Array<{ n: number }>>(
      "SELECT count(*)::int AS n FROM executions WHERE trigger_id = $1::uuid AND discarded_at IS NOT NULL",
      other,
    );
    expect(discarded!.n).toBe(1);
    await browser.screenshot("23-bulk-discarded");
  }, T);

  it("a date typed in part is refused at its field and nothing is sent; the confirmation restates the range in the viewer's zone and in UTC", async () => {
    const from = page.getByLabel("Failed from");
    const before = page.getByLabel("Failed before");
    await page.getByLabel("Tag", { exact: true }).fill("outage");
    await from.fill("");
    await before.fill("");
    // Day and month typed, the year not: the input's value then reads as "", as if nothing were typed.
    await before.focus();
    await page.keyboard.type("0101");
    expect(await before.evaluate((i: HTMLInputElement) => [i.validity.badInput, i.value])).toEqual([true, ""]);
    const calls = sent.length;
    await page.getByRole("button", { name: "Replay…" }).click();
    await waitText(page.locator("#bulk-to-error"), "Failed before is not a complete date and time");
    await page.waitForFunction(() => document.activeElement?.id === "bulk-to");
    expect(await before.getAttribute("aria-invalid")).toBe("true");
    expect(await page.getByRole("dialog").count()).toBe(0);
    expect(sent.length).toBe(calls);

    const hourAgo = new Date(Math.floor(Date.now() / 60_000) * 60_000 - 3600_000);
    const inAnHour = new Date(hourAgo.getTime() + 2 * 3600_000);
    await from.fill(berlinLocal(hourAgo));
    await before.fill(berlinLocal(inAnHour));
    await page.getByRole("button", { name: "Replay…" }).click();
    const dialog = page.getByRole("dialog", { name: "Replay these dead letters?" });
    await waitText(dialog, "2 dead letters will be replayed (tag “outage”)");
    expect(await page.locator("#bulk-to-error").count()).toBe(0);
    expect(sent.at(-1)?.body).toEqual({ tag: "outage", from: hourAgo.toISOString(), to: inAnHour.toISOString(), dryRun: true });
    const range = await dialog.getByTestId("bulk-range").textContent();
    const utcText = (d: Date) => `${d.toISOString().slice(0, 10)} ${d.toISOString().slice(11, 19)} UTC`;
    expect(range).toMatch(new RegExp(`^Failed from .*${berlinLocal(hourAgo).slice(11)}:00 CES?T \\(${utcText(hourAgo)}\\) up to, not including, .*${berlinLocal(inAnHour).slice(11)}:00 CES?T \\(${utcText(inAnHour)}\\)\\.$`));
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await dialog.waitFor({ state: "hidden" });
    await from.fill("");
    await before.fill("");
  }, T);

  it("a recurring trigger's next ten runs show its zone's UTC offset, and where daylight saving changes it", async () => {
    const res = await sys.call("POST", "/schedule", {
      "ttr-api-key": sys.apiKey,
      "ttr-url": `${target.base}/monthly`,
      "ttr-scheduled-at": "cron(0 12 1 * *, America/New_York)",
    });
    expect(res.status, res.text).toBe(200);
    await page.goto(dashboard(`/triggers/${res.json().triggerId}`));
    await page.getByRole("heading", { name: "Next 10 runs" }).waitFor();
    const runs = page.getByTestId("next-runs").locator("tbody tr");
    await runs.first().waitFor();
    expect(await runs.count()).toBe(10);
    const offsets = await runs.evaluateAll((rows) => rows.map((r) => r.getAttribute("data-offset")));
    // ten months always span a change between standard and daylight time in New York
    expect(new Set(offsets)).toEqual(new Set(["UTC-05:00", "UTC-04:00"]));
    for (const [i, row] of (await runs.all()).entries()) {
      await waitText(row.locator("td").nth(0), /12:00:00/);
      await waitText(row.locator("td").nth(1), offsets[i]!);
      await waitText(row.locator("td").nth(2), offsets[i] === "UTC-05:00" ? "17:00:00 UTC" : "16:00:00 UTC");
    }
    const changes = page.getByTestId("next-runs").locator(".offset-change");
    const expected = offsets.filter((o, i) => i > 0 && o !== offsets[i - 1]).length;
    expect(expected).toBeGreaterThan(0);
    expect(await changes.count()).toBe(expected);
    await waitText(changes.first(), /^changed from UTC-0[45]:00$/);
    await browser.screenshot("24-next-runs-offsets");
  }, T);

  it("a trigger moved into the past by its custom key while retrying is skipped: its retry waits for its time, and Retry now is not offered", async () => {
    const policy = await sys.call("POST", "/tag-policies", key(), JSON.stringify({ tag: "moved", retryStrategy: "fixed", retryInitialDelaySeconds: 3600, retryOn: "non_2xx" }));
    expect(policy.status, policy.text).toBe(200);
    const send = async (at: string) => {
      const res = await sys.call("POST", "/schedule", { "ttr-api-key": sys.apiKey, "ttr-url": `${target.base}/fail`, "ttr-scheduled-at": at, "ttr-tags": "moved", "ttr-custom-key": "moved-back" });
      expect(res.status, res.text).toBe(200);
      return res.json().triggerId as string;
    };
    const moved = await send("now");
    await page.goto(dashboard(`/triggers/${moved}`));
    await waitText(page.locator(".detail-head .badge"), "Retrying", 20_000);
    expect(await send("2020-01-01T00:00:00Z")).toBe(moved);
    await page.reload();
    await waitText(page.locator(".detail-head .badge"), "Skipped", 20_000);
    await page.getByRole("button", { name: "Retry now" }).waitFor();
    expect(await page.getByRole("button", { name: "Retry now" }).isDisabled()).toBe(true);
  }, T);

  it("meets WCAG 2 A and AA as axe-core checks them, with a paused policy and a bulk confirmation open", async () => {
    const [billing] = (await policies()).filter((p) => p.tag === "billing");
    const paused = await sys.call("PUT", `/tag-policies/${billing!.id}`, key(), JSON.stringify({ paused: true }));
    expect(paused.status).toBe(200);
    const check = async (name: string) => expect(await axeViolations(page), name).toEqual([]);
    await page.goto(dashboard("/tag-policies"));
    await waitText(page.locator('[data-testid=policy][data-tag="billing"] .badge'), "Paused");
    await check("/tag-policies");
    await page.goto(dashboard("/dead-letters"));
    await deadRow(outage[0]!).first().waitFor();
    await check("/dead-letters");
    await page.getByRole("button", { name: "Replay…" }).click();
    await page.getByRole("dialog").waitFor();
    await check("/dead-letters with the dialog");
    await page.keyboard.press("Escape");
    expect(browser.problems).toEqual([]);
  }, T);
});
