// Every row of the check order in docs/api/schedule.md, in order, each asserting status,
// _tag, exact message or empty body, and that nothing was written.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey, revokeApiKey } from "@ttr/db";
import { startApi, type TestApi } from "../../../test/support/api.js";
import { expectNoWrites } from "../../../test/support/snapshot.js";

let api: TestApi;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

const future = () => new Date(Date.now() + 3600_000).toISOString();

function headers(extra: Record<string, string> = {}): Record<string, string> {
  return { "ttr-api-key": api.apiKey, "ttr-url": "http://127.0.0.1:9/hook", "ttr-scheduled-at": future(), ...extra };
}

async function rejected(h: Record<string, string | string[]>, status: number, tag: string | null, message?: string, opts: { usage?: boolean; method?: string; body?: string } = {}) {
  const res = await expectNoWrites(api.db, () => api.call(opts.method ?? "POST", "/schedule", h, opts.body), { usage: opts.usage ?? true });
  expect(res.status).toBe(status);
  if (tag === null) {
    expect(res.body.length).toBe(0);
  } else {
    expect(res.headers["content-type"]).toMatch(/^application\/json/);
    expect(res.json()).toEqual({ _tag: tag, message });
  }
  return res;
}

describe("/schedule check order (docs/api/schedule.md)", () => {
  it("400 with an empty body when ttr-api-key is missing", async () => {
    const h = headers();
    delete (h as Record<string, string | undefined>)["ttr-api-key"];
    await rejected(h, 400, null);
  });

  it("400 with an empty body when ttr-url is missing, even with a bad key", async () => {
    const h = headers({ "ttr-api-key": "nope" });
    delete (h as Record<string, string | undefined>)["ttr-url"];
    await rejected(h, 400, null);
  });

  it("400 for a ttr- header sent twice (its values would be joined into one nobody sent), after the required ones are known present", async () => {
    for (const name of ["ttr-url", "ttr-custom-key", "ttr-title", "ttr-run-missed", "TTR-Scheduled-At"]) {
      const h: Record<string, string | string[]> = headers({ "ttr-api-key": "wrong" });
      h[name.toLowerCase()] = [h[name.toLowerCase()] as string ?? "a", "b"].filter((v) => v !== undefined);
      if (name === "TTR-Scheduled-At") h["ttr-scheduled-at"] = [future(), future()];
      await rejected(h, 400, "BadRequest", `Header ${name.toLowerCase()} must be sent once`);
    }
    // ttr-tags is a list: its lines add up
    const tagged = await api.call("POST", "/schedule", { ...headers(), "ttr-tags": ["a", "b,c"] });
    expect(tagged.status, tagged.text).toBe(200);
    const h = headers();
    delete (h as Record<string, string | undefined>)["ttr-url"];
    await rejected({ ...h, "ttr-custom-key": ["a", "b"] }, 400, null);
  });

  it("400 Invalid URL for an empty or relative URL, even with a wrong key", async () => {
    await rejected(headers({ "ttr-url": "" }), 400, "BadRequest", "Invalid URL: ");
    await rejected(headers({ "ttr-url": "/relative/path" }), 400, "BadRequest", "Invalid URL: /relative/path");
    await rejected(headers({ "ttr-url": "not a url", "ttr-api-key": "wrong" }), 400, "BadRequest", "Invalid URL: not a url");
  });

  it("400 Maximum 10 tags allowed", async () => {
    const tags = Array.from({ length: 11 }, (_, i) => `t${i}`).join(",");
    await rejected(headers({ "ttr-tags": tags }), 400, "BadRequest", "Maximum 10 tags allowed");
  });

  it("400 Tag too long, checked before characters and before the key", async () => {
    const long = "a".repeat(51);
    await rejected(headers({ "ttr-tags": `ok,${long},BAD`, "ttr-api-key": "wrong" }), 400, "BadRequest", `Tag too long (max 50 chars): ${long}`);
  });

  it("400 Invalid tag for other characters, tags in listed order", async () => {
    await rejected(headers({ "ttr-tags": `ok,Bad!,${"b".repeat(60)}` }), 400, "BadRequest", "Invalid tag (only a-z 0-9 _ - allowed): Bad!");
  });

  it("tags and dates sent as UTF-8 are read as text: length counts characters, and messages show what was sent", async () => {
    // an HTTP client puts the UTF-8 bytes on the wire; Node hands them over as Latin-1
    const wire = (text: string) => Buffer.from(text, "utf8").toString("latin1");
    const e26 = "é".repeat(26); // 26 characters, 52 bytes
    await rejected(headers({ "ttr-tags": wire(e26) }), 400, "BadRequest", `Invalid tag (only a-z 0-9 _ - allowed): ${e26}`);
    await rejected(headers({ "ttr-tags": wire("é".repeat(51)) }), 400, "BadRequest", `Tag too long (max 50 chars): ${"é".repeat(51)}`);
    await rejected(headers({ "ttr-scheduled-at": wire("demain à 9h") }), 400, "BadRequest", "Invalid date: demain à 9h");
  });

  it("401 Invalid api key for an unknown or empty key", async () => {
    await rejected(headers({ "ttr-api-key": "ttr_unknown" }), 401, "Unauthorized", "Invalid api key");
    await rejected(headers({ "ttr-api-key": "" }), 401, "Unauthorized", "Invalid api key");
  });

  it("401 Invalid api key for a revoked key (docs/cli.md)", async () => {
    const { apiKeyId, apiKey } = await createApiKey(api.db, api.projectId);
    expect((await api.call("POST", "/schedule", headers({ "ttr-api-key": apiKey }))).status).toBe(200);
    await revokeApiKey(api.db, apiKeyId);
    await rejected(headers({ "ttr-api-key": apiKey }), 401, "Unauthorized", "Invalid api key");
  });

  it("401 wins over an invalid scheduled-at", async () => {
    await rejected(headers({ "ttr-api-key": "wrong", "ttr-scheduled-at": "garbage" }), 401, "Unauthorized", "Invalid api key");
  });

  it("400 Invalid date for an empty, missing or unreadable scheduled-at", async () => {
    await rejected(headers({ "ttr-scheduled-at": "" }), 400, "BadRequest", "Invalid date: ");
    await rejected(headers({ "ttr-scheduled-at": "tomorrow" }), 400, "BadRequest", "Invalid date: tomorrow");
    const h = headers();
    delete (h as Record<string, string | undefined>)["ttr-scheduled-at"];
    await rejected(h, 400, "BadRequest", "Invalid date: ");
  });

  it("400 Unknown pipe operation", async () => {
    await rejected(headers({ "ttr-scheduled-at": "now | multiply 2s" }), 400, "BadRequest", "Unknown pipe operation: multiply 2s");
    await rejected(headers({ "ttr-scheduled-at": "now | ADD 5s" }), 400, "BadRequest", "Unknown pipe operation: ADD 5s");
  });

  it("400 Invalid duration", async () => {
    await rejected(headers({ "ttr-scheduled-at": "now | add 5x" }), 400, "BadRequest", "Invalid duration: 5x");
    await rejected(headers({ "ttr-scheduled-at": "now | add 1.5h" }), 400, "BadRequest", "Invalid duration: 1.5h");
  });

  it("400 Invalid cron expression for a bad expression or time zone", async () => {
    const bad = await rejected(headers({ "ttr-scheduled-at": "cron(61 * * * *)" }), 400, "BadRequest", expect.stringMatching(/^Invalid cron expression: .+/) as unknown as string);
    expect(bad.status).toBe(400);
    await rejected(headers({ "ttr-scheduled-at": "cron(0 * * * *, Mars/Olympus)" }), 400, "BadRequest", expect.stringMatching(/^Invalid cron expression: .+/) as unknown as string);
  });

  it("404 Trigger not found for an unknown ID with a date, using one quota unit", async () => {
    const before = await quotaRemaining();
    await rejected(headers({ "ttr-trigger-id": "00000000-0000-4000-8000-000000000000" }), 404, "NotFound", "Trigger not found", { usage: false });
    await rejected(headers({ "ttr-trigger-id": "not-a-uuid" }), 404, "NotFound", "Trigger not found", { usage: false });
    expect(await quotaRemaining()).toBe(before - 3);
  });

  it("404 Trigger not found when the ID is a generator's; Generator not found when a one-shot's ID is edited with cron", async () => {
    const gen = await api.call("POST", "/schedule", headers({ "ttr-scheduled-at": "cron(*/5 * * * *)" }));
    expect(gen.status).toBe(200);
    await rejected(headers({ "ttr-trigger-id": gen.json().triggerId }), 404, "NotFound", "Trigger not found", { usage: false });
    const job = await api.call("POST", "/schedule", headers());
    await rejected(headers({ "ttr-trigger-id": job.json().triggerId, "ttr-scheduled-at": "cron(0 * * * *)" }), 404, "NotFound", "Generator not found", { usage: false });
  });

  it("410 Job is no longer in registered state for an ID edit of a cancelled one-shot", async () => {
    const job = await api.call("POST", "/schedule", headers());
    const id = job.json().triggerId;
    expect((await api.call("DELETE", "/cancel", { "ttr-api-key": api.apiKey, "ttr-trigger-id": id })).status).toBe(204);
    await rejected(headers({ "ttr-trigger-id": id }), 410, "Gone", "Job is no longer in registered state", { usage: false });
  });

  it("410 Generator is no longer active for an ID edit of a cancelled generator", async () => {
    const gen = await api.call("POST", "/schedule", headers({ "ttr-scheduled-at": "cron(0 0 * * *)" }));
    const id = gen.json().triggerId;
    expect((await api.call("DELETE", "/cancel", { "ttr-api-key": api.apiKey, "ttr-trigger-id": id })).status).toBe(204);
    await rejected(headers({ "ttr-trigger-id": id, "ttr-scheduled-at": "cron(0 1 * * *)" }), 410, "Gone", "Generator is no longer active", { usage: false });
  });

  it("413 PayloadTooLarge for a body over 1 MiB", async () => {
    const res = await expectNoWrites(api.db, () => api.call("POST", "/schedule", headers(), Buffer.alloc(1024 * 1024 + 1, 97)));
    expect(res.status).toBe(413);
    expect(res.json()._tag).toBe("PayloadTooLarge");
  });

  it("400 Title too long over 200 characters", async () => {
    await rejected(headers({ "ttr-title": "x".repeat(201) }), 400, "BadRequest", "Title too long (max 200 chars)");
  });

  async function quotaRemaining(): Promise<number> {
    const res = await api.call("POST", "/schedule", headers());
    expect(res.status).toBe(200);
    return res.json().monthQuotaRemaining + 0;
  }
});

describe("quota (docs/quota.md)", () => {
  it("calls rejected with 400 or 401 use no unit; 404 uses one", async () => {
    const first = (await api.call("POST", "/schedule", headers())).json().monthQuotaRemaining as number;
    await api.call("POST", "/schedule", headers({ "ttr-url": "" }));
    await api.call("POST", "/schedule", headers({ "ttr-api-key": "wrong" }));
    await api.call("POST", "/schedule", headers({ "ttr-scheduled-at": "bad" }));
    const second = (await api.call("POST", "/schedule", headers())).json().monthQuotaRemaining as number;
    expect(second).toBe(first - 1);
    await api.call("POST", "/schedule", headers({ "ttr-trigger-id": "00000000-0000-4000-8000-000000000000" }));
    const third = (await api.call("POST", "/schedule", headers())).json().monthQuotaRemaining as number;
    expect(third).toBe(second - 2);
  });
});
