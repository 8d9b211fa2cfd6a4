// POST /triggers: /schedule with a JSON body, for the dashboard's New
// trigger form (docs/api/dashboard-api.md). The same checks in the same order with
// the same answers as /schedule (each case is sent both ways and compared),
// the body's own format errors as {_tag, message}, quota use, and both
// credentials: the session cookie and an API key.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type TestApi } from "../../../test/support/api.js";
import { generatorById, instancesOf, triggerById } from "../../../test/support/rows.js";
import { expectNoWrites } from "../../../test/support/snapshot.js";
import { signIn, type TestSession } from "../../../test/support/session.js";

let api: TestApi;
let s: TestSession;
beforeAll(async () => {
  api = await startApi();
  s = await signIn(api);
});
afterAll(() => api.close());

const future = (ms = 3600_000) => new Date(Date.now() + ms).toISOString();
const month = () => new Date().toISOString().slice(0, 7);

async function used(projectId = api.projectId): Promise<number> {
  const rows = await api.db.$queryRawUnsafe<Array<{ used: number }>>(
    "SELECT used FROM project_usage WHERE project_id = $1::uuid AND month = $2",
    projectId,
    month(),
  );
  return rows[0]?.used ?? 0;
}

const create = (json: unknown, headers: Record<string, string> = {}) => s.call("POST", "/triggers", headers, json);

describe("POST /triggers creates what /schedule creates", () => {
  it("a one-shot with every field: 200 with /schedule's answer, the request stored as sent, one quota unit", async () => {
    const before = await used();
    const at = future();
    const res = await create({
      url: "http://127.0.0.1:9/hook?x=1",
      method: "patch",
      headers: { "Content-Type": "application/json", "X-Trace": "abc" },
      body: '{"hello":"wörld"}',
      scheduledAt: at,
      customKey: "create-all",
      tags: ["billing", "eu"],
      title: "Remind about invoice",
    });
    expect(res.status, res.text).toBe(200);
    const answer = res.json();
    expect(answer).toEqual({
      triggerId: expect.any(String),
      scheduledAt: new Date(Math.floor(Date.parse(at) / 1000) * 1000).toISOString(),
      operation: "schedule",
      kind: "job",
      monthQuotaRemaining: 100000 - before - 1,
    });
    expect(await used()).toBe(before + 1);
    const row = await triggerById(api.db, answer.triggerId);
    expect(row).toMatchObject({
      status: "registered",
      customKey: "create-all",
      title: "Remind about invoice",
      url: "http://127.0.0.1:9/hook?x=1",
      method: "PATCH",
      headers: [
        ["Content-Type", "application/json"],
        ["X-Trace", "abc"],
      ],
      tags: ["billing", "eu"],
    });
    expect(row!.body!.toString("utf8")).toBe('{"hello":"wörld"}');

    // The dashboard's read of it shows the same.
    const { trigger } = await s.get(`/triggers/${answer.triggerId}`);
    expect(trigger).toMatchObject({ method: "PATCH", headers: { "Content-Type": "application/json", "X-Trace": "abc" }, body: '{"hello":"wörld"}' });
  });

  it("defaults: GET, no headers, no body, no tags, no title, no key", async () => {
    const res = await create({ url: "http://127.0.0.1:9/x", scheduledAt: "now | add 1h" });
    expect(res.status, res.text).toBe(200);
    const row = await triggerById(api.db, res.json().triggerId);
    expect(row).toMatchObject({ method: "GET", headers: [], body: null, tags: [], title: null, customKey: null, status: "registered" });
  });

  it("a recurring trigger: its first instance exists when the answer comes", async () => {
    const res = await create({ url: "http://127.0.0.1:9/cron", method: "POST", body: "tick", scheduledAt: "cron(*/5 * * * *, Europe/Berlin)", title: "Every five" });
    expect(res.status, res.text).toBe(200);
    const { triggerId, kind, operation, scheduledAt } = res.json();
    expect([kind, operation]).toEqual(["generator", "schedule"]);
    expect(await generatorById(api.db, triggerId)).toMatchObject({ status: "active", cronExpr: "*/5 * * * *", tz: "Europe/Berlin" });
    const [instance] = await instancesOf(api.db, triggerId);
    expect(instance).toMatchObject({ status: "registered", method: "POST", title: null });
    expect(instance!.scheduledAt.toISOString()).toBe(scheduledAt);
  });

  it("a custom key reschedules its pending trigger, as on /schedule", async () => {
    const first = await api.call("POST", "/schedule", { "ttr-api-key": api.apiKey, "ttr-url": "http://127.0.0.1:9/a", "ttr-scheduled-at": future(), "ttr-custom-key": "same-key" });
    expect(first.status).toBe(200);
    const again = await create({ url: "http://127.0.0.1:9/b", scheduledAt: future(7200_000), customKey: "same-key" });
    expect(again.status, again.text).toBe(200);
    expect(again.json()).toMatchObject({ triggerId: first.json().triggerId, operation: "reschedule", kind: "job" });
    expect((await triggerById(api.db, first.json().triggerId))?.url).toBe("http://127.0.0.1:9/b");
  });

  it("a past date is stored as skipped, unless runMissed", async () => {
    const skipped = await create({ url: "http://127.0.0.1:9/p", scheduledAt: "2020-01-01T00:00:00Z" });
    expect((await triggerById(api.db, skipped.json().triggerId))?.status).toBe("skipped");
    const run = await create({ url: "http://127.0.0.1:9/p", scheduledAt: "2020-01-01T00:00:00Z", runMissed: true });
    expect((await triggerById(api.db, run.json().triggerId))?.status).toBe("registered");
  });

  it("an API key works in place of the cookie, as ttr-api-key or Bearer", async () => {
    for (const auth of [{ "ttr-api-key": api.apiKey }, { Authorization: `Bearer ${api.apiKey}` }]) {
      const res = await api.call("POST", "/triggers", { ...auth, "Content-Type": "application/json" }, JSON.stringify({ url: "http://127.0.0.1:9/k", scheduledAt: future() }));
      expect(res.status, res.text).toBe(200);
      expect(res.json().kind).toBe("job");
    }
  });
});

describe("POST /triggers checks as /schedule does, in the same order", () => {
  interface Case {
    name: string;
    url?: string;
    at?: string;
    tags?: string[];
    title?: string;
    key?: string;
    apiKey?: string;
  }
  const CASES: Case[] = [
    { name: "an empty URL", url: "" },
    { name: "a relative URL, even with a wrong key", url: "/relative", apiKey: "ttr_wrong" },
    { name: "11 tags", tags: Array.from({ length: 11 }, (_, i) => `t${i}`) },
    { name: "a tag too long, before characters and the key", tags: ["ok", "a".repeat(51), "BAD"], apiKey: "ttr_wrong" },
    { name: "a tag with other characters", tags: ["Bad!"] },
    { name: "a title over 200 characters", title: "t".repeat(201) },
    { name: "a custom key over 500 characters", key: "k".repeat(501) },
    { name: "a wrong key wins over an invalid date", at: "garbage", apiKey: "ttr_wrong" },
    { name: "an invalid date", at: "tomorrow" },
    { name: "an unknown pipe operation", at: "now | plus 1h" },
    { name: "an invalid duration", at: "now | add 1y" },
    { name: "a bad cron expression", at: "cron(61 * * * *)" },
    { name: "an unknown time zone", at: "cron(* * * * *, Mars/Olympus)" },
  ];

  for (const c of CASES) {
    it(`${c.name}: the answer /schedule gives, nothing written, no quota used`, async () => {
      const url = c.url ?? "http://127.0.0.1:9/hook";
      const at = c.at ?? future();
      const headers: Record<string, string> = { "ttr-api-key": c.apiKey ?? api.apiKey, "ttr-url": url, "ttr-scheduled-at": at };
      if (c.tags) headers["ttr-tags"] = c.tags.join(",");
      if (c.title) headers["ttr-title"] = c.title;
      if (c.key) headers["ttr-custom-key"] = c.key;
      const viaSchedule = await expectNoWrites(api.db, () => api.call("POST", "/schedule", headers));
      const json = { url, scheduledAt: at, tags: c.tags, title: c.title, customKey: c.key };
      const credentials = c.apiKey ? { "ttr-api-key": c.apiKey, "Content-Type": "application/json" } : undefined;
      const viaTriggers = await expectNoWrites(api.db, () =>
        credentials ? api.call("POST", "/triggers", credentials, JSON.stringify(json)) : create(json),
      );
      expect(viaSchedule.status).toBeGreaterThanOrEqual(400);
      expect(viaTriggers.status).toBe(viaSchedule.status);
      expect(viaTriggers.json()).toEqual(viaSchedule.json());
    });
  }

  it("402 when the month's quota is used up, with /schedule's message; calls refused before it use none", async () => {
    const small = await startApi({ quota: 2 });
    try {
      const session = await signIn(small);
      const ok = (n: number) => session.call("POST", "/triggers", {}, { url: "http://127.0.0.1:9/q", scheduledAt: future(), title: `q${n}` });
      expect((await ok(1)).json().monthQuotaRemaining).toBe(1);
      expect((await session.call("POST", "/triggers", {}, { url: "nope", scheduledAt: future() })).status).toBe(400);
      expect((await ok(2)).json().monthQuotaRemaining).toBe(0);
      const refused = await expectNoWrites(small.db, () => ok(3));
      expect(refused.status).toBe(402);
      expect(refused.json()).toEqual({ _tag: "QuotaExceeded", message: "Monthly quota of 2 triggers exceeded" });
      const viaSchedule = await small.call("POST", "/schedule", { "ttr-api-key": small.apiKey, "ttr-url": "http://127.0.0.1:9/q", "ttr-scheduled-at": future() });
      expect(viaSchedule.json()).toEqual(refused.json());
      expect((await session.get("/project")).project).toMatchObject({ monthlyQuota: 2, usedThisMonth: 2 });
    } finally {
      await small.close();
    }
  });
});

describe("POST /triggers: the body's own format", () => {
  const bad = async (body: string | undefined, message: string | RegExp, contentType = "application/json") => {
    const res = await expectNoWrites(api.db, () => api.call("POST", "/triggers", { Cookie: s.cookie, "Content-Type": contentType }, body));
    expect(res.status, res.text).toBe(400);
    expect(res.headers["content-type"]).toMatch(/^application\/json/);
    const { _tag, message: got } = res.json();
    expect(_tag).toBe("BadRequest");
    if (typeof message === "string") expect(got).toBe(message);
    else expect(got).toMatch(message);
  };
  const json = (extra: Record<string, unknown>) => JSON.stringify({ url: "http://127.0.0.1:9/f", scheduledAt: future(), ...extra });

  it("not JSON, empty, or not an object: 400 with a message", async () => {
    await bad("{nope", /^Body is not valid JSON: /);
    await bad("", "Body is empty: a JSON object is required");
    await bad("[1]", /^Body must be of type object$/);
  });

  it("a missing or mistyped field names it", async () => {
    await bad(JSON.stringify({ scheduledAt: "now" }), "url is required");
    await bad(JSON.stringify({ url: "http://127.0.0.1:9/f" }), "scheduledAt is required");
    await bad(json({ tags: "a,b" }), "tags must be an array");
    await bad(json({ headers: { "X-A": 1 } }), "headers.X-A must be a string");
    await bad(json({ runMissed: "true" }), "runMissed must be a boolean");
  });

  it("a method, header name or value HTTP cannot carry, and headers never sent", async () => {
    await bad(json({ method: "GE T" }), "Invalid method: GE T");
    await bad(json({ headers: { "Bad Name": "x" } }), "Invalid header name: Bad Name");
    await bad(json({ headers: { "ttr-api-key": "x" } }), "Header ttr-api-key cannot be stored: ttr- and connection-level headers are never sent");
    await bad(json({ headers: { Connection: "close" } }), "Header Connection cannot be stored: ttr- and connection-level headers are never sent");
    await bad(json({ headers: { "X-A": "one\r\nX-B: two" } }), "Invalid value for header X-A: line breaks and characters beyond Latin-1 cannot be sent");
  });

  it("a body with a method that carries none", async () => {
    await bad(json({ method: "GET", body: "x" }), "A GET request carries no body: leave the body empty or choose another method");
    await bad(json({ body: "x" }), "A GET request carries no body: leave the body empty or choose another method");
  });

  it("the format is checked before the credentials; a Content-Type other than JSON is 415", async () => {
    const res = await api.call("POST", "/triggers", { "Content-Type": "application/json" }, "{nope");
    expect(res.status).toBe(400);
    const noAuth = await api.call("POST", "/triggers", { "Content-Type": "application/json" }, json({}));
    expect(noAuth.status).toBe(401);
    expect(noAuth.json()).toEqual({ _tag: "Unauthorized", message: "Unauthorized" });
    const text = await expectNoWrites(api.db, () => s.call("POST", "/triggers", { "Content-Type": "text/plain" }, { url: "x" }));
    expect(text.status).toBe(415);
    expect(text.text).toBe("Unsupported content-type: text/plain");
  });

  it("a body over 1 MiB is 413", async () => {
    const res = await expectNoWrites(api.db, () => create({ url: "http://127.0.0.1:9/big", method: "POST", body: "x".repeat(1024 * 1024 + 1), scheduledAt: future() }));
    expect(res.status).toBe(413);
    expect(res.json()).toEqual({ _tag: "PayloadTooLarge", message: "The trigger's body is larger than 1 MiB" });
  });
});
