// The rules of docs/api/schedule.md, the past-dated rule, the stored request and
// the response fields.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type TestApi } from "../../../test/support/api.js";
import { generatorById, instancesOf, setTriggerStatus, triggerById } from "../../../test/support/rows.js";

let api: TestApi;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

const inAnHour = () => new Date(Math.floor(Date.now() / 1000) * 1000 + 3600_000);

function schedule(extra: Record<string, string> = {}, method = "POST", body?: string | Buffer) {
  return api.call(method, "/schedule", { "ttr-api-key": api.apiKey, "ttr-url": "http://127.0.0.1:9/hook?x=1", "ttr-scheduled-at": inAnHour().toISOString(), ...extra }, body);
}

describe("response and stored request", () => {
  it("answers the documented fields and stores the time to the second", async () => {
    const at = new Date(Date.now() + 7200_000);
    at.setUTCMilliseconds(987);
    const res = await schedule({ "ttr-scheduled-at": at.toISOString() });
    expect(res.status).toBe(200);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(["kind", "monthQuotaRemaining", "operation", "scheduledAt", "triggerId"]);
    expect(body.kind).toBe("job");
    expect(body.operation).toBe("schedule");
    const truncated = new Date(at);
    truncated.setUTCMilliseconds(0);
    expect(body.scheduledAt).toBe(truncated.toISOString());
    expect(body.scheduledAt).toMatch(/\.000Z$/);
    expect(Number.isInteger(body.monthQuotaRemaining)).toBe(true);
    const stored = await triggerById(api.db, body.triggerId);
    expect(stored?.status).toBe("registered");
    expect(stored?.scheduledAt.toISOString()).toBe(truncated.toISOString());
  });

  it("stores forwarded headers with their case and repeats, minus ttr- and connection-level ones", async () => {
    const res = await api.call("PUT", "/schedule", {
      "ttr-api-key": api.apiKey,
      "ttr-url": "http://127.0.0.1:9/x",
      "ttr-scheduled-at": "now | add 1h",
      "ttr-tags": "a,b",
      "ttr-title": "nightly",
      "X-Custom": "one",
      "x-repeat": ["1", "2"],
      "Accept-Encoding": "gzip, br",
      Connection: "keep-alive, X-Hop",
      "X-Hop": "dropped",
      "Keep-Alive": "timeout=5",
      "Content-Type": "application/octet-stream",
    }, Buffer.from([0, 1, 2, 255]));
    expect(res.status).toBe(200);
    const stored = await triggerById(api.db, res.json().triggerId);
    expect(stored?.method).toBe("PUT");
    expect(stored?.url).toBe("http://127.0.0.1:9/x");
    expect(stored?.tags).toEqual(["a", "b"]);
    expect(stored?.title).toBe("nightly");
    expect(stored?.body).toEqual(Buffer.from([0, 1, 2, 255]));
    const names = stored!.headers.map(([n]) => n);
    expect(names).not.toContain("Host");
    expect(names.some((n) => n.toLowerCase().startsWith("ttr-"))).toBe(false);
    expect(names.map((n) => n.toLowerCase())).not.toEqual(expect.arrayContaining(["connection"]));
    expect(stored!.headers).toEqual(
      expect.arrayContaining([["X-Custom", "one"], ["x-repeat", "1"], ["x-repeat", "2"], ["Accept-Encoding", "gzip, br"], ["Content-Type", "application/octet-stream"]]),
    );
    for (const dropped of ["x-hop", "keep-alive", "content-length", "host"]) {
      expect(names.map((n) => n.toLowerCase())).not.toContain(dropped);
    }
  });

  it("reads no body for GET, HEAD and OPTIONS, and HEAD gets no response body", async () => {
    for (const method of ["GET", "OPTIONS", "DELETE", "PATCH"]) {
      const res = await schedule({}, method, method === "GET" || method === "OPTIONS" ? undefined : "payload");
      expect(res.status, `${method}: ${res.text}`).toBe(200);
      const stored = await triggerById(api.db, res.json().triggerId);
      expect(stored?.method).toBe(method);
      expect(stored?.body).toEqual(method === "GET" || method === "OPTIONS" ? null : Buffer.from("payload"));
    }
    const head = await schedule({}, "HEAD");
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
  });
});

describe("UTF-8 text headers", () => {
  it("reads a UTF-8 title and custom key as UTF-8", async () => {
    const res = await schedule({ "ttr-title": Buffer.from("Réunion ☕", "utf8").toString("latin1"), "ttr-custom-key": Buffer.from("clé", "utf8").toString("latin1") });
    expect(res.status, res.text).toBe(200);
    const stored = await triggerById(api.db, res.json().triggerId);
    expect(stored?.title).toBe("Réunion ☕");
    expect(stored?.customKey).toBe("clé");
    const url = await schedule({ "ttr-url": Buffer.from("http://127.0.0.1:9/v-ü?q=ä", "utf8").toString("latin1") });
    expect(url.status, url.text).toBe(200);
    expect((await triggerById(api.db, url.json().triggerId))?.url).toBe("http://127.0.0.1:9/v-ü?q=ä");
    // /cancel reads the key alike, so it finds the trigger.
    const cancel = await api.call("DELETE", "/cancel", { "ttr-api-key": api.apiKey, "ttr-custom-key": Buffer.from("clé", "utf8").toString("latin1") });
    expect(cancel.status, cancel.text).toBe(204);
    expect((await triggerById(api.db, res.json().triggerId))?.status).toBe("cancelled");
  });

  it("a custom key over 500 characters is a 400 before the key check, and uses no quota", async () => {
    const before = await api.db.$queryRawUnsafe<Array<{ n: number }>>("SELECT COALESCE(sum(used), 0)::int AS n FROM project_usage");
    const res = await schedule({ "ttr-custom-key": "k".repeat(501), "ttr-api-key": "unknown" });
    expect(res.status).toBe(400);
    expect(res.json()).toEqual({ _tag: "BadRequest", message: "Custom key too long (max 500 chars)" });
    const long = await schedule({ "ttr-custom-key": "é".repeat(500) + "x" });
    expect(long.json().message).toBe("Custom key too long (max 500 chars)");
    const after = await api.db.$queryRawUnsafe<Array<{ n: number }>>("SELECT COALESCE(sum(used), 0)::int AS n FROM project_usage");
    expect(after).toEqual(before);
    // 500 characters of up to 4 bytes each are stored and indexed.
    const ok = await schedule({ "ttr-custom-key": Buffer.from("😀".repeat(500), "utf8").toString("latin1") });
    expect(ok.status, ok.text).toBe(200);
  });
});

describe("rule 1: custom keys", () => {
  it("reschedules a registered or skipped trigger with the same key in place", async () => {
    const first = (await schedule({ "ttr-custom-key": "k1" })).json();
    const second = await schedule({ "ttr-custom-key": "k1", "ttr-url": "http://127.0.0.1:9/other" });
    expect(second.json()).toMatchObject({ triggerId: first.triggerId, operation: "reschedule", kind: "job" });
    expect((await triggerById(api.db, first.triggerId))?.url).toBe("http://127.0.0.1:9/other");

    const skipped = (await schedule({ "ttr-custom-key": "k1s", "ttr-scheduled-at": "2020-01-01T00:00:00Z" })).json();
    expect((await triggerById(api.db, skipped.triggerId))?.status).toBe("skipped");
    const revived = (await schedule({ "ttr-custom-key": "k1s" })).json();
    expect(revived).toMatchObject({ triggerId: skipped.triggerId, operation: "reschedule" });
    expect((await triggerById(api.db, skipped.triggerId))?.status).toBe("registered");
  });

  it("does not match a queued trigger: a second one is created", async () => {
    const first = (await schedule({ "ttr-custom-key": "k2" })).json();
    await setTriggerStatus(api.db, first.triggerId, "queued");
    const second = (await schedule({ "ttr-custom-key": "k2" })).json();
    expect(second.triggerId).not.toBe(first.triggerId);
    expect(second.operation).toBe("schedule");
    expect((await triggerById(api.db, first.triggerId))?.status).toBe("queued");
  });

  it("updates a retrying trigger in place, keeping its time", async () => {
    const first = (await schedule({ "ttr-custom-key": "k3" })).json();
    await setTriggerStatus(api.db, first.triggerId, "retrying");
    const before = await triggerById(api.db, first.triggerId);
    const res = (await schedule({ "ttr-custom-key": "k3", "ttr-url": "http://127.0.0.1:9/new", "ttr-scheduled-at": "now | add 3d" })).json();
    expect(res).toMatchObject({ triggerId: first.triggerId, operation: "reschedule" });
    const after = await triggerById(api.db, first.triggerId);
    expect(after?.status).toBe("retrying");
    expect(after?.url).toBe("http://127.0.0.1:9/new");
    expect(after?.scheduledAt.toISOString()).toBe(before?.scheduledAt.toISOString());
  });
});

describe("rule 2: one-shot and recurring replace each other by key", () => {
  it("a recurring request cancels the one-shot holding the key, and the reverse", async () => {
    const job = (await schedule({ "ttr-custom-key": "swap" })).json();
    const gen = (await schedule({ "ttr-custom-key": "swap", "ttr-scheduled-at": "cron(0 * * * *)" })).json();
    expect(gen.kind).toBe("generator");
    expect((await triggerById(api.db, job.triggerId))?.status).toBe("cancelled");
    expect((await generatorById(api.db, gen.triggerId))?.status).toBe("active");

    const job2 = (await schedule({ "ttr-custom-key": "swap" })).json();
    expect(job2.kind).toBe("job");
    expect((await generatorById(api.db, gen.triggerId))?.status).toBe("cancelled");
    const instances = await instancesOf(api.db, gen.triggerId);
    expect(instances.every((i) => i.status === "cancelled")).toBe(true);
  });

  it("a recurring trigger edited by ID with another one's key takes the key: one owner per key (docs/concepts.md)", async () => {
    const a = (await schedule({ "ttr-custom-key": "own-a", "ttr-scheduled-at": "cron(0 1 * * *)" })).json();
    const b = (await schedule({ "ttr-custom-key": "own-b", "ttr-scheduled-at": "cron(0 2 * * *)" })).json();
    const res = await schedule({ "ttr-trigger-id": a.triggerId, "ttr-custom-key": "own-b", "ttr-scheduled-at": "cron(0 10 * * *)" });
    expect(res.json()).toMatchObject({ triggerId: a.triggerId, operation: "reschedule", kind: "generator" });
    expect(await generatorById(api.db, a.triggerId)).toMatchObject({ status: "active", customKey: "own-b" });
    expect((await generatorById(api.db, b.triggerId))?.status).toBe("cancelled");
    expect((await instancesOf(api.db, b.triggerId)).map((i) => i.status)).toEqual(["cancelled"]);
  });

  it("an instance edited by ID with a key keeps no key: keys belong to the recurring trigger", async () => {
    const gen = (await schedule({ "ttr-custom-key": "inst-owner", "ttr-scheduled-at": "cron(0 3 * * *)" })).json();
    const [instance] = await instancesOf(api.db, gen.triggerId);
    const res = await schedule({ "ttr-trigger-id": instance!.id, "ttr-custom-key": "inst-key", "ttr-scheduled-at": "now | add 2h" });
    expect(res.status, res.text).toBe(200);
    expect(await triggerById(api.db, instance!.id)).toMatchObject({ customKey: null, generatorId: gen.triggerId });
  });

  it("an instance edited by ID takes no key, so it cancels no recurring trigger holding one: its own or another", async () => {
    const own = (await schedule({ "ttr-custom-key": "own-gen", "ttr-scheduled-at": "cron(0 3 * * *)" })).json();
    const other = (await schedule({ "ttr-custom-key": "other-gen", "ttr-scheduled-at": "cron(0 4 * * *)" })).json();
    const [instance] = await instancesOf(api.db, own.triggerId);
    for (const key of ["own-gen", "other-gen"]) {
      const res = await schedule({ "ttr-trigger-id": instance!.id, "ttr-custom-key": key, "ttr-scheduled-at": "now | add 2h" });
      expect(res.status, res.text).toBe(200);
      expect(res.json()).toMatchObject({ triggerId: instance!.id, operation: "reschedule", kind: "job" });
    }
    expect(await triggerById(api.db, instance!.id)).toMatchObject({ status: "registered", customKey: null, generatorId: own.triggerId });
    expect((await generatorById(api.db, own.triggerId))?.status).toBe("active");
    expect(await generatorById(api.db, other.triggerId)).toMatchObject({ status: "active", customKey: "other-gen" });
  });
});

describe("rule 3: edits by ttr-trigger-id", () => {
  it("edits a registered one-shot by ID", async () => {
    const job = (await schedule()).json();
    const res = await schedule({ "ttr-trigger-id": job.triggerId, "ttr-url": "http://127.0.0.1:9/edited" });
    expect(res.json()).toMatchObject({ triggerId: job.triggerId, operation: "reschedule" });
    expect((await triggerById(api.db, job.triggerId))?.url).toBe("http://127.0.0.1:9/edited");
  });

  it("with a key held by a pending one-shot, edits that trigger and does not check the ID", async () => {
    const job = (await schedule({ "ttr-custom-key": "r3" })).json();
    const res = await schedule({ "ttr-custom-key": "r3", "ttr-trigger-id": "00000000-0000-4000-8000-000000000000" });
    expect(res.status).toBe(200);
    expect(res.json().triggerId).toBe(job.triggerId);
  });

  it("with cron, always checks the ID and edits the generator, replacing its pending instance", async () => {
    const gen = (await schedule({ "ttr-scheduled-at": "cron(0 3 * * *)" })).json();
    const res = await schedule({ "ttr-trigger-id": gen.triggerId, "ttr-scheduled-at": "cron(30 4 * * *, Europe/Paris)" });
    expect(res.json()).toMatchObject({ triggerId: gen.triggerId, operation: "reschedule", kind: "generator" });
    const stored = await generatorById(api.db, gen.triggerId);
    expect(stored).toMatchObject({ cronExpr: "30 4 * * *", tz: "Europe/Paris" });
    const instances = await instancesOf(api.db, gen.triggerId);
    expect(instances.map((i) => i.status)).toEqual(["cancelled", "registered"]);
    expect(instances[1]!.scheduledAt.toISOString()).toBe(res.json().scheduledAt);
  });
});

describe("rule 4: past-dated one-shots", () => {
  it("stores a past time as skipped, unless ttr-run-missed is true", async () => {
    const skipped = (await schedule({ "ttr-scheduled-at": "2024-05-01" })).json();
    expect((await triggerById(api.db, skipped.triggerId))?.status).toBe("skipped");
    expect(skipped.scheduledAt).toBe("2024-05-01T00:00:00.000Z");
    const run = (await schedule({ "ttr-scheduled-at": "2024-05-01", "ttr-run-missed": "true" })).json();
    expect((await triggerById(api.db, run.triggerId))?.status).toBe("registered");
  });

  it("never skips a now-based time, even in the past", async () => {
    const res = (await schedule({ "ttr-scheduled-at": "now | subtract 1h" })).json();
    expect((await triggerById(api.db, res.triggerId))?.status).toBe("registered");
    expect(new Date(res.scheduledAt).getTime()).toBeLessThan(Date.now() - 3500_000);
  });

  it("treats a time equal to the request second as past", async () => {
    const now = new Date();
    now.setUTCMilliseconds(0);
    const res = (await schedule({ "ttr-scheduled-at": now.toISOString() })).json();
    expect((await triggerById(api.db, res.triggerId))?.status).toBe("skipped");
  });

  it("does not skip a time later in the request's second: it is stored at that second and due at once", async () => {
    // start early in a second, so that .999 of it is still ahead when the request arrives
    if (Date.now() % 1000 > 500) await new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000) + 5));
    const second = new Date(Math.floor(Date.now() / 1000) * 1000);
    const late = new Date(second.getTime() + 999).toISOString();
    const res = (await schedule({ "ttr-scheduled-at": late })).json();
    expect(res.scheduledAt).toBe(second.toISOString());
    expect((await triggerById(api.db, res.triggerId))?.status).toBe("registered");
    const declared = await api.call("POST", "/declare", { "ttr-api-key": api.apiKey, "content-type": "application/json" }, JSON.stringify({ tag: "late-in-second", items: [{ url: "http://127.0.0.1:9/x", scheduledAt: late, customKey: "late" }] }));
    expect(declared.status, declared.text).toBe(200);
    expect(declared.json().operations[0]).toMatchObject({ operation: "added" });
  });
});

describe("rule 5: recurring", () => {
  it("creates the first instance within the call and answers its time", async () => {
    const res = await schedule({ "ttr-scheduled-at": "cron(*/10 * * * *)", "ttr-tags": "sync", "ttr-title": "every ten", "X-A": "1" });
    const body = res.json();
    expect(body).toMatchObject({ kind: "generator", operation: "schedule" });
    const at = new Date(body.scheduledAt);
    expect(at.getUTCMinutes() % 10).toBe(0);
    expect(at.getUTCSeconds()).toBe(0);
    expect(at.getTime()).toBeGreaterThan(Date.now());
    expect(at.getTime() - Date.now()).toBeLessThanOrEqual(600_000);
    const instances = await instancesOf(api.db, body.triggerId);
    expect(instances).toHaveLength(1);
    expect(instances[0]).toMatchObject({ status: "registered", title: null, customKey: null, tags: ["sync"], url: "http://127.0.0.1:9/hook?x=1" });
    expect(instances[0]!.headers).toEqual(expect.arrayContaining([["X-A", "1"]]));
  });

  it("re-sending with the same key updates the generator and replaces the pending instance", async () => {
    const first = (await schedule({ "ttr-custom-key": "cronkey", "ttr-scheduled-at": "cron(0 0 * * *)" })).json();
    const second = (await schedule({ "ttr-custom-key": "cronkey", "ttr-scheduled-at": "cron(0 0 * * *)", "ttr-url": "http://127.0.0.1:9/v2" })).json();
    expect(second).toMatchObject({ triggerId: first.triggerId, operation: "reschedule" });
    const instances = await instancesOf(api.db, first.triggerId);
    expect(instances.map((i) => i.status)).toEqual(["cancelled", "registered"]);
    expect(instances[1]!.url).toBe("http://127.0.0.1:9/v2");
  });
});

describe("rules 6 and 7: tag policies", () => {
  it("answers 200 when a policy on the trigger's tag holds everything", async () => {
    await api.db.$executeRawUnsafe(
      `INSERT INTO tag_policies (id, project_id, tag, throughput, updated_at) VALUES (gen_random_uuid(), $1::uuid, 'held', '{"1s": 0}'::jsonb, now())`,
      api.projectId,
    );
    const res = await schedule({ "ttr-tags": "held", "ttr-scheduled-at": "now" });
    expect(res.status).toBe(200);
    const gen = await schedule({ "ttr-tags": "held", "ttr-scheduled-at": "cron(* * * * *)" });
    expect(gen.status).toBe(200);
    const [instance] = await instancesOf(api.db, gen.json().triggerId);
    expect(instance?.tags).toEqual(["held"]);
  });
});
