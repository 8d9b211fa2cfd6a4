// PUT /triggers/<id> (/schedule with ttr-trigger-id) and DELETE
// /triggers/<id> (/cancel by ID), for the dashboard's Edit and Cancel
// (docs/api/dashboard-api.md): what each may change, their 404 and 410 with
// /schedule's and /cancel's messages, another project's triggers, quota,
// cross-site refusal, and both credentials.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type TestApi } from "../../../test/support/api.js";
import { generatorById, instancesOf, setTriggerStatus, triggerById } from "../../../test/support/rows.js";
import { expectNoWrites } from "../../../test/support/snapshot.js";
import { otherProject, signIn, type TestSession } from "../../../test/support/session.js";

let api: TestApi;
let s: TestSession;
beforeAll(async () => {
  api = await startApi();
  s = await signIn(api);
});
afterAll(() => api.close());

const future = (ms = 3600_000) => new Date(Date.now() + ms).toISOString();
const UNKNOWN = "00000000-0000-4000-8000-000000000000";

async function used(): Promise<number> {
  const rows = await api.db.$queryRawUnsafe<Array<{ used: number }>>(
    "SELECT used FROM project_usage WHERE project_id = $1::uuid AND month = $2",
    api.projectId,
    new Date().toISOString().slice(0, 7),
  );
  return rows[0]?.used ?? 0;
}

async function oneShot(extra: Record<string, unknown> = {}): Promise<string> {
  const res = await s.call("POST", "/triggers", {}, { url: "http://127.0.0.1:9/one", method: "POST", body: "v1", scheduledAt: future(), tags: ["a"], title: "v1", ...extra });
  expect(res.status, res.text).toBe(200);
  return res.json().triggerId;
}

async function recurring(extra: Record<string, unknown> = {}): Promise<string> {
  const res = await s.call("POST", "/triggers", {}, { url: "http://127.0.0.1:9/cron", scheduledAt: "cron(0 * * * *)", ...extra });
  expect(res.status, res.text).toBe(200);
  return res.json().triggerId;
}

const edit = (id: string, json: unknown, headers: Record<string, string> = {}) => s.call("PUT", `/triggers/${id}`, headers, json);
const error = (status: number, tag: string, message: string) => ({ status, body: { _tag: tag, message } });
const answerOf = (res: { status: number; json(): unknown }) => ({ status: res.status, body: res.json() });

describe("PUT /triggers/<id>", () => {
  it("replaces a registered one-shot's request and time; same ID, reschedule, one quota unit", async () => {
    const id = await oneShot();
    const before = await used();
    const at = future(7200_000);
    const res = await edit(id, { url: "http://127.0.0.1:9/two", method: "PUT", headers: { "X-V": "2" }, body: "v2", scheduledAt: at, title: "v2" });
    expect(res.status, res.text).toBe(200);
    expect(res.json()).toMatchObject({ triggerId: id, operation: "reschedule", kind: "job", scheduledAt: new Date(Math.floor(Date.parse(at) / 1000) * 1000).toISOString() });
    expect(await used()).toBe(before + 1);
    const row = await triggerById(api.db, id);
    // The whole trigger is replaced: the tags it no longer lists are gone.
    expect(row).toMatchObject({ status: "registered", url: "http://127.0.0.1:9/two", method: "PUT", headers: [["X-V", "2"]], tags: [], title: "v2" });
    expect(row!.body!.toString()).toBe("v2");
  });

  it("the whole trigger is replaced, its custom key too: left out, null or empty, the key is gone (one-shot and recurring)", async () => {
    for (const [i, without] of [{}, { customKey: null }, { customKey: "" }].entries()) {
      const id = await oneShot({ customKey: `drop-key-${i}` });
      const res = await edit(id, { url: "http://127.0.0.1:9/keyless", scheduledAt: future(), ...without });
      expect(res.status, res.text).toBe(200);
      expect((await triggerById(api.db, id))?.customKey).toBeNull();
      // and the key is free: a /schedule with it makes a new trigger
      const again = await api.call("POST", "/schedule", { "ttr-api-key": api.apiKey, "ttr-url": "http://127.0.0.1:9/k", "ttr-scheduled-at": future(), "ttr-custom-key": `drop-key-${i}` });
      expect(again.json()).toMatchObject({ operation: "schedule" });
    }
    const gen = await recurring({ customKey: "drop-gen-key" });
    expect((await edit(gen, { url: "http://127.0.0.1:9/cron", scheduledAt: "cron(0 * * * *)" })).status).toBe(200);
    expect((await generatorById(api.db, gen))?.customKey).toBeNull();
    // /schedule's headers say only what they change: an edit by ID without a key keeps it
    const kept = await oneShot({ customKey: "kept-key" });
    const viaHeaders = await api.call("POST", "/schedule", { "ttr-api-key": api.apiKey, "ttr-url": "http://127.0.0.1:9/h", "ttr-scheduled-at": future(), "ttr-trigger-id": kept });
    expect(viaHeaders.status, viaHeaders.text).toBe(200);
    expect((await triggerById(api.db, kept))?.customKey).toBe("kept-key");
  });

  it("a recurring trigger with cron(...): the definition changes and its pending instance is replaced", async () => {
    const id = await recurring();
    const [old] = await instancesOf(api.db, id);
    const res = await edit(id, { url: "http://127.0.0.1:9/cron2", method: "POST", body: "b", scheduledAt: "cron(30 6 * * *, America/New_York)", tags: ["nightly"] });
    expect(res.status, res.text).toBe(200);
    expect(res.json()).toMatchObject({ triggerId: id, operation: "reschedule", kind: "generator" });
    expect(await generatorById(api.db, id)).toMatchObject({ status: "active", cronExpr: "30 6 * * *", tz: "America/New_York", url: "http://127.0.0.1:9/cron2" });
    const instances = await instancesOf(api.db, id);
    expect(instances.find((i) => i.id === old!.id)?.status).toBe("cancelled");
    const pending = instances.filter((i) => i.status === "registered");
    expect(pending).toHaveLength(1);
    expect(pending[0]).toMatchObject({ url: "http://127.0.0.1:9/cron2", method: "POST", tags: ["nightly"] });
    expect(pending[0]!.scheduledAt.toISOString()).toBe(res.json().scheduledAt);
  });

  it("the /schedule ID rules: 404 and 410 with its messages, each after using a quota unit", async () => {
    const job = await oneShot();
    const gen = await recurring();
    const queued = await oneShot();
    await setTriggerStatus(api.db, queued, "queued");
    const cancelledGen = await recurring();
    expect((await s.call("DELETE", `/triggers/${cancelledGen}`)).status).toBe(204);

    const at = { url: "http://127.0.0.1:9/x", scheduledAt: future() };
    const cron = { url: "http://127.0.0.1:9/x", scheduledAt: "cron(0 0 * * *)" };
    const cases: Array<[string, unknown, ReturnType<typeof error>]> = [
      [UNKNOWN, at, error(404, "NotFound", "Trigger not found")],
      ["not-a-uuid", at, error(404, "NotFound", "Trigger not found")],
      [gen, at, error(404, "NotFound", "Trigger not found")],
      [job, cron, error(404, "NotFound", "Generator not found")],
      [UNKNOWN, cron, error(404, "NotFound", "Generator not found")],
      [queued, at, error(410, "Gone", "Job is no longer in registered state")],
      [cancelledGen, cron, error(410, "Gone", "Generator is no longer active")],
    ];
    for (const [id, json, expected] of cases) {
      const before = await used();
      const res = await expectNoWrites(api.db, () => edit(id, json), { usage: false });
      expect(answerOf(res), `${id} ${JSON.stringify(json)}`).toEqual(expected);
      expect(await used()).toBe(before + 1);
      // /schedule with ttr-trigger-id answers the same
      const viaSchedule = await api.call("POST", "/schedule", { "ttr-api-key": api.apiKey, "ttr-url": "http://127.0.0.1:9/x", "ttr-trigger-id": id, "ttr-scheduled-at": (json as { scheduledAt: string }).scheduledAt });
      expect(answerOf(viaSchedule)).toEqual(expected);
    }
  });

  it("as on /schedule, a custom key held by a pending one-shot picks the trigger edited", async () => {
    const holder = await oneShot({ customKey: "held-key" });
    const other = await oneShot();
    const res = await edit(other, { url: "http://127.0.0.1:9/by-key", scheduledAt: future(), customKey: "held-key" });
    expect(res.status, res.text).toBe(200);
    expect(res.json().triggerId).toBe(holder);
    expect((await triggerById(api.db, holder))?.url).toBe("http://127.0.0.1:9/by-key");
    expect((await triggerById(api.db, other))?.url).toBe("http://127.0.0.1:9/one");
  });

  it("an API key works in place of the cookie", async () => {
    const id = await oneShot();
    const res = await api.call("PUT", `/triggers/${id}`, { "ttr-api-key": api.apiKey, "Content-Type": "application/json" }, JSON.stringify({ url: "http://127.0.0.1:9/k", scheduledAt: future() }));
    expect(res.status, res.text).toBe(200);
    expect((await triggerById(api.db, id))?.url).toBe("http://127.0.0.1:9/k");
  });
});

describe("DELETE /triggers/<id>", () => {
  it("cancels a registered one-shot: 204, no body, no quota; a second time is 410", async () => {
    const id = await oneShot();
    const before = await used();
    const res = await s.call("DELETE", `/triggers/${id}`);
    expect(res.status).toBe(204);
    expect(res.body.length).toBe(0);
    expect((await triggerById(api.db, id))?.status).toBe("cancelled");
    expect(await used()).toBe(before);
    const again = await expectNoWrites(api.db, () => s.call("DELETE", `/triggers/${id}`));
    expect(answerOf(again)).toEqual(error(410, "Gone", "Job is no longer cancellable (status=cancelled)"));
  });

  it("cancels a recurring trigger with its pending instance; a second time is 410", async () => {
    const id = await recurring();
    expect((await s.call("DELETE", `/triggers/${id}`)).status).toBe(204);
    expect((await generatorById(api.db, id))?.status).toBe("cancelled");
    expect((await instancesOf(api.db, id)).map((i) => i.status)).toEqual(["cancelled"]);
    expect(answerOf(await s.call("DELETE", `/triggers/${id}`))).toEqual(error(410, "Gone", "Generator already cancelled"));
  });

  it("/cancel's answers for what cannot be cancelled, and the same with ttr-trigger-id on /cancel", async () => {
    const queued = await oneShot();
    await setTriggerStatus(api.db, queued, "queued");
    const cases: Array<[string, ReturnType<typeof error>]> = [
      [queued, error(410, "Gone", "Job is no longer cancellable (status=queued)")],
      [UNKNOWN, error(404, "NotFound", "Job not found")],
      ["not-a-uuid", error(404, "NotFound", "Job not found")],
    ];
    for (const [id, expected] of cases) {
      expect(answerOf(await expectNoWrites(api.db, () => s.call("DELETE", `/triggers/${id}`)))).toEqual(expected);
      expect(answerOf(await api.call("DELETE", "/cancel", { "ttr-api-key": api.apiKey, "ttr-trigger-id": id }))).toEqual(expected);
    }
  });

  it("an API key works in place of the cookie, ttr-api-key or Bearer", async () => {
    for (const auth of [{ "ttr-api-key": api.apiKey }, { Authorization: `Bearer ${api.apiKey}` }]) {
      const id = await oneShot();
      expect((await api.call("DELETE", `/triggers/${id}`, auth)).status).toBe(204);
      expect((await triggerById(api.db, id))?.status).toBe("cancelled");
    }
  });
});

describe("scope and credentials", () => {
  it("another project's triggers are not found, and are left alone", async () => {
    const other = await otherProject(api);
    const theirs = await other.session.call("POST", "/triggers", {}, { url: "http://127.0.0.1:9/theirs", scheduledAt: future() });
    const theirGen = await other.session.call("POST", "/triggers", {}, { url: "http://127.0.0.1:9/theirs", scheduledAt: "cron(0 * * * *)" });
    const id = theirs.json().triggerId;
    const gen = theirGen.json().triggerId;
    const at = { url: "http://127.0.0.1:9/mine", scheduledAt: future() };
    expect(answerOf(await expectNoWrites(api.db, () => edit(id, at), { usage: false }))).toEqual(error(404, "NotFound", "Trigger not found"));
    expect(answerOf(await expectNoWrites(api.db, () => edit(gen, { ...at, scheduledAt: "cron(0 0 * * *)" }), { usage: false }))).toEqual(
      error(404, "NotFound", "Generator not found"),
    );
    for (const target of [id, gen]) {
      expect(answerOf(await expectNoWrites(api.db, () => s.call("DELETE", `/triggers/${target}`)))).toEqual(error(404, "NotFound", "Job not found"));
      const byKey = await api.call("DELETE", `/triggers/${target}`, { "ttr-api-key": api.apiKey });
      expect(byKey.status).toBe(404);
    }
    expect((await triggerById(api.db, id))?.url).toBe("http://127.0.0.1:9/theirs");
    expect((await generatorById(api.db, gen))?.status).toBe("active");
  });

  it("no credentials: 401 Unauthorized; an unknown key: 401 Invalid api key; nothing written", async () => {
    const id = await oneShot();
    const json = JSON.stringify({ url: "http://127.0.0.1:9/x", scheduledAt: future() });
    const ct = { "Content-Type": "application/json" };
    for (const [method, path, body] of [["POST", "/triggers", json], ["PUT", `/triggers/${id}`, json], ["DELETE", `/triggers/${id}`, undefined]] as const) {
      const none = await expectNoWrites(api.db, () => api.call(method, path, body ? ct : {}, body));
      expect(answerOf(none)).toEqual(error(401, "Unauthorized", "Unauthorized"));
      const wrong = await expectNoWrites(api.db, () => api.call(method, path, { ...(body ? ct : {}), "ttr-api-key": "ttr_unknown" }, body));
      expect(answerOf(wrong)).toEqual(error(401, "Unauthorized", "Invalid api key"));
    }
  });

  it("with the cookie from another site: 403, nothing written; with an API key the Origin does not matter", async () => {
    const id = await oneShot();
    const json = { url: "http://127.0.0.1:9/csrf", scheduledAt: future() };
    for (const site of [{ Origin: "https://evil.example" }, { "Sec-Fetch-Site": "cross-site" }]) {
      for (const [method, path] of [["POST", "/triggers"], ["PUT", `/triggers/${id}`], ["DELETE", `/triggers/${id}`]] as const) {
        const res = await expectNoWrites(api.db, () => s.call(method, path, site, method === "DELETE" ? undefined : json));
        expect(answerOf(res), `${method} ${JSON.stringify(site)}`).toEqual(error(403, "Forbidden", "Cross-site request refused"));
      }
    }
    expect((await triggerById(api.db, id))?.status).toBe("registered");
    const byKey = await api.call("DELETE", `/triggers/${id}`, { "ttr-api-key": api.apiKey, Origin: "https://evil.example" });
    expect(byKey.status).toBe(204);
  });
});
