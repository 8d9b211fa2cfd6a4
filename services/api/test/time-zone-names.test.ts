// The time zone of a recurring trigger is stored and returned exactly as the
// caller wrote it (docs/cron.md "The time zone"), through /schedule, /declare
// and the dashboard's Trigger JSON, while unknown zones are still refused.
// Node knows Asia/Kolkata as Asia/Calcutta and US/Eastern as America/New_York;
// neither substitution may reach the caller.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type TestApi } from "../../../test/support/api.js";
import { generatorById } from "../../../test/support/rows.js";
import { signIn, type TestSession } from "../../../test/support/session.js";
import { ok, post } from "./declare-support.js";

let api: TestApi;
let s: TestSession;
beforeAll(async () => {
  api = await startApi();
  s = await signIn(api);
});
afterAll(() => api.close());

function schedule(scheduledAt: string, extra: Record<string, string> = {}) {
  return api.call("POST", "/schedule", { "ttr-api-key": api.apiKey, "ttr-url": "http://127.0.0.1:9/hook", "ttr-scheduled-at": scheduledAt, ...extra });
}

describe("/schedule and the Trigger JSON", () => {
  it.each(["Asia/Kolkata", "Asia/Calcutta", "US/Eastern", "Europe/Kyiv", "europe/berlin", "utc"])("keeps %s as written", async (tz) => {
    const res = await schedule(`cron(0 9 * * *, ${tz})`);
    expect(res.status, res.text).toBe(200);
    const id = res.json().triggerId as string;
    expect(await generatorById(api.db, id)).toMatchObject({ cronExpr: "0 9 * * *", tz });
    const { trigger } = await s.get(`/triggers/${id}`);
    expect(trigger).toMatchObject({ kind: "generator", cronExpr: "0 9 * * *", tz });
  });

  it("runs in the zone the name stands for", async () => {
    // India has no daylight saving: 09:00 there is always 03:30 UTC.
    const scheduledAt: string = (await schedule("cron(0 9 * * *, Asia/Kolkata)")).json().scheduledAt;
    expect(scheduledAt).toMatch(/T03:30:00\.000Z$/);
  });

  it("a re-sent zone under another name of the same zone is an edit, kept as written", async () => {
    const first = (await schedule("cron(0 9 * * *, Asia/Calcutta)", { "ttr-custom-key": "tz-edit" })).json();
    const again = await schedule("cron(0 9 * * *, Asia/Kolkata)", { "ttr-custom-key": "tz-edit" });
    expect(again.json()).toMatchObject({ triggerId: first.triggerId, operation: "reschedule", kind: "generator" });
    expect(await generatorById(api.db, first.triggerId)).toMatchObject({ tz: "Asia/Kolkata" });
  });

  it("still refuses zones Intl does not know", async () => {
    const res = await schedule("cron(0 9 * * *, Asia/Atlantis)");
    expect(res.status).toBe(400);
    expect(res.json()).toEqual({ _tag: "BadRequest", message: 'Invalid cron expression: unknown time zone "Asia/Atlantis"' });
  });
});

describe("/declare", () => {
  const item = (tz: string) => ({ customKey: "g", url: "http://127.0.0.1:9/hook", method: "POST", scheduledAt: `cron(0 9 * * *, ${tz})` });

  it("stores the name as written, finds it unchanged when re-declared, and reports another name as a tz change", async () => {
    const tag = "tz-names";
    const created = await ok(post(api, "/declare", { tag, items: [item("US/Eastern")] }));
    const id = created.operations[0].id as string;
    expect(await generatorById(api.db, id)).toMatchObject({ tz: "US/Eastern" });

    // Every call also replaces the upcoming instance (a `cancelled` job entry), so only the generator's entry is compared.
    const generatorEntries = (out: { operations: Array<{ kind: string }> }) => out.operations.filter((op) => op.kind === "generator");
    const same = await ok(post(api, "/declare", { tag, items: [item("US/Eastern")] }));
    expect(generatorEntries(same)).toEqual([{ operation: "unchanged", customKey: "g", kind: "generator", id }]);

    const renamed = await ok(post(api, "/declare", { tag, items: [item("America/New_York")] }));
    expect(generatorEntries(renamed)).toEqual([{ operation: "updated", customKey: "g", kind: "generator", id, changedFields: ["tz"] }]);
    expect(await generatorById(api.db, id)).toMatchObject({ tz: "America/New_York" });
    const { trigger } = await s.get(`/triggers/${id}`);
    expect(trigger.tz).toBe("America/New_York");
  });
});
