// cron(…) values through POST /schedule: the error that names the real
// problem when the expression holds commas, and day-of-week ranges ending
// on Sunday (docs/cron.md), stored as written.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type TestApi } from "../../../test/support/api.js";
import { generatorById, instancesOf } from "../../../test/support/rows.js";

let api: TestApi;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

const schedule = (at: string) =>
  api.call("POST", "/schedule", { "ttr-api-key": api.apiKey, "ttr-url": "http://127.0.0.1:9/", "ttr-scheduled-at": at });

describe("a comma inside cron(…)", () => {
  it.each([
    ["cron(61 9,17 * * *)", 'Constraint error, got value 61 expected range 0-59 in "61 9,17 * * *"'],
    ["cron(0 9,17 * * MON,TUX)", 'Validation error, cannot resolve alias "tux" in "0 9,17 * * MON,TUX"'],
    ["cron(0 0 31 2,4 *)", 'Invalid explicit day of month definition in "0 0 31 2,4 *"'],
    ["cron(0 9 * *, UTC)", 'expected 5 fields (minute hour day-of-month month day-of-week), got 4 in "0 9 * *"'],
    ["cron(0 9 * * *, Mars/Olympus)", 'unknown time zone "Mars/Olympus"'],
  ])("%s: 400 naming the real problem", async (at, details) => {
    const res = await schedule(at);
    expect(res.status).toBe(400);
    expect(res.json()).toEqual({ _tag: "BadRequest", message: `Invalid cron expression: ${details}` });
  });

  it("a zone after the weekday list is still a zone", async () => {
    const res = await schedule("cron(0 9 * * MON,EST)");
    expect(res.status, res.text).toBe(200);
    const stored = await generatorById(api.db, res.json().triggerId);
    expect([stored?.cronExpr, stored?.tz]).toEqual(["0 9 * * MON", "EST"]);
  });
});

describe("day-of-week ranges ending on SUN", () => {
  it.each([
    ["cron(0 0 * * MON-SUN)", "0 0 * * MON-SUN", [0, 1, 2, 3, 4, 5, 6]],
    ["cron(0 0 * * sat-sun)", "0 0 * * sat-sun", [0, 6]],
  ] as const)("%s is accepted, stored as written, and runs on those days", async (at, expr, days) => {
    const res = await schedule(at);
    expect(res.status, res.text).toBe(200);
    const { triggerId, scheduledAt } = res.json();
    expect((await generatorById(api.db, triggerId))?.cronExpr).toBe(expr);
    const [instance] = await instancesOf(api.db, triggerId);
    expect(instance?.scheduledAt.toISOString()).toBe(scheduledAt);
    expect(days).toContain(new Date(scheduledAt).getUTCDay());
    // The first run is the next midnight that falls on one of those days.
    const next = new Date(Math.floor(Date.now() / 86_400_000 + 1) * 86_400_000);
    while (!(days as readonly number[]).includes(next.getUTCDay())) next.setUTCDate(next.getUTCDate() + 1);
    expect(scheduledAt).toBe(next.toISOString());
  });
});
