// DELETE /cancel: every check of docs/api/cancel.md, in order, and what it cancels.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type TestApi } from "../../../test/support/api.js";
import { generatorById, instancesOf, setTriggerStatus, triggerById } from "../../../test/support/rows.js";
import { expectNoWrites } from "../../../test/support/snapshot.js";

let api: TestApi;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

function schedule(extra: Record<string, string> = {}) {
  return api
    .call("POST", "/schedule", { "ttr-api-key": api.apiKey, "ttr-url": "http://127.0.0.1:9/", "ttr-scheduled-at": "now | add 1h", ...extra })
    .then((r) => r.json() as { triggerId: string });
}

function cancel(h: Record<string, string>) {
  return api.call("DELETE", "/cancel", { "ttr-api-key": api.apiKey, ...h });
}

async function rejected(h: Record<string, string | string[]>, status: number, tag: string | null, message?: string) {
  const res = await expectNoWrites(api.db, () => api.call("DELETE", "/cancel", h));
  expect(res.status).toBe(status);
  if (tag === null) expect(res.body.length).toBe(0);
  else expect(res.json()).toEqual({ _tag: tag, message });
}

describe("/cancel checks (docs/api/cancel.md)", () => {
  it("400 with an empty body when ttr-api-key is missing", async () => {
    await rejected({ "ttr-trigger-id": "x" }, 400, null);
  });

  it("400 when neither identifier is sent, or both are empty, even with a bad key", async () => {
    const msg = "Must provide either ttr-trigger-id or ttr-custom-key header";
    await rejected({ "ttr-api-key": "wrong" }, 400, "BadRequest", msg);
    await rejected({ "ttr-api-key": api.apiKey, "ttr-trigger-id": "", "ttr-custom-key": "" }, 400, "BadRequest", msg);
  });

  it("400 for a ttr- header sent twice, before the key is checked", async () => {
    await rejected({ "ttr-api-key": "wrong", "ttr-custom-key": ["a", "b"] }, 400, "BadRequest", "Header ttr-custom-key must be sent once");
    await rejected({ "ttr-api-key": [api.apiKey, api.apiKey], "ttr-trigger-id": "x" }, 400, "BadRequest", "Header ttr-api-key must be sent once");
  });

  it("400 when both identifiers are sent", async () => {
    await rejected({ "ttr-api-key": "wrong", "ttr-trigger-id": "a", "ttr-custom-key": "b" }, 400, "BadRequest", "Provide either ttr-trigger-id or ttr-custom-key, not both");
  });

  it("401 Invalid api key for an unknown or empty key", async () => {
    await rejected({ "ttr-api-key": "ttr_nope", "ttr-trigger-id": "x" }, 401, "Unauthorized", "Invalid api key");
    await rejected({ "ttr-api-key": "", "ttr-custom-key": "x" }, 401, "Unauthorized", "Invalid api key");
  });

  it("410 Generator already cancelled by ID", async () => {
    const gen = await schedule({ "ttr-scheduled-at": "cron(0 0 * * *)" });
    expect((await cancel({ "ttr-trigger-id": gen.triggerId })).status).toBe(204);
    await rejected({ "ttr-api-key": api.apiKey, "ttr-trigger-id": gen.triggerId }, 410, "Gone", "Generator already cancelled");
  });

  it("404 Job not found when nothing matches, by ID or key, one-shot or recurring", async () => {
    await rejected({ "ttr-api-key": api.apiKey, "ttr-trigger-id": "00000000-0000-4000-8000-000000000000" }, 404, "NotFound", "Job not found");
    await rejected({ "ttr-api-key": api.apiKey, "ttr-trigger-id": "not-a-uuid" }, 404, "NotFound", "Job not found");
    await rejected({ "ttr-api-key": api.apiKey, "ttr-custom-key": "nobody" }, 404, "NotFound", "Job not found");
  });

  it("410 Job is no longer cancellable for queued, running and completed one-shots, and by ID for cancelled ones", async () => {
    for (const status of ["queued", "running", "completed"]) {
      const job = await schedule({ "ttr-custom-key": `st-${status}` });
      await setTriggerStatus(api.db, job.triggerId, status);
      await rejected({ "ttr-api-key": api.apiKey, "ttr-trigger-id": job.triggerId }, 410, "Gone", `Job is no longer cancellable (status=${status})`);
      await rejected({ "ttr-api-key": api.apiKey, "ttr-custom-key": `st-${status}` }, 410, "Gone", `Job is no longer cancellable (status=${status})`);
    }
    const job = await schedule({ "ttr-custom-key": "st-cancelled" });
    expect((await cancel({ "ttr-trigger-id": job.triggerId })).status).toBe(204);
    await rejected({ "ttr-api-key": api.apiKey, "ttr-trigger-id": job.triggerId }, 410, "Gone", "Job is no longer cancellable (status=cancelled)");
    await rejected({ "ttr-api-key": api.apiKey, "ttr-custom-key": "st-cancelled" }, 404, "NotFound", "Job not found");
  });

  it("410 by key while a queued one-shot holds it, even after a newer trigger with that key was cancelled", async () => {
    const queued = await schedule({ "ttr-custom-key": "held-q" });
    await setTriggerStatus(api.db, queued.triggerId, "queued");
    const newer = await schedule({ "ttr-custom-key": "held-q" });
    expect(newer.triggerId).not.toBe(queued.triggerId);
    expect((await cancel({ "ttr-custom-key": "held-q" })).status).toBe(204);
    expect((await triggerById(api.db, newer.triggerId))?.status).toBe("cancelled");
    await rejected({ "ttr-api-key": api.apiKey, "ttr-custom-key": "held-q" }, 410, "Gone", "Job is no longer cancellable (status=queued)");
  });

  it("404 for another project's trigger", async () => {
    const other = await import("@ttr/db").then((m) => m.createProject(api.db, "other", 10));
    const theirs = (await api.call("POST", "/schedule", { "ttr-api-key": other.apiKey, "ttr-url": "http://x/", "ttr-scheduled-at": "now | add 1h" })).json();
    await rejected({ "ttr-api-key": api.apiKey, "ttr-trigger-id": theirs.triggerId }, 404, "NotFound", "Job not found");
  });

  it("404 at once for another project's trigger that its own work holds locked: the wait would tell that the ID exists", async () => {
    const other = await import("@ttr/db").then((m) => m.createProject(api.db, "locked-other", 10));
    const theirs = (await api.call("POST", "/schedule", { "ttr-api-key": other.apiKey, "ttr-url": "http://x/", "ttr-scheduled-at": "now | add 1h" })).json();
    let locked: () => void = () => {};
    const holding = new Promise<void>((r) => {
      locked = r;
    });
    const held = api.db.$transaction(async (tx) => {
      await tx.$queryRawUnsafe("SELECT id FROM triggers WHERE id = $1::uuid FOR UPDATE", theirs.triggerId);
      locked();
      await new Promise((r) => setTimeout(r, 3000));
    });
    await holding;
    const started = Date.now();
    for (const [method, path, headers] of [
      ["DELETE", "/cancel", { "ttr-trigger-id": theirs.triggerId }],
      ["POST", "/schedule", { "ttr-trigger-id": theirs.triggerId, "ttr-url": "http://x/", "ttr-scheduled-at": "now | add 2h" }],
    ] as const) {
      const res = await api.call(method, path, { "ttr-api-key": api.apiKey, ...headers });
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    expect(Date.now() - started, "answered without waiting for the other project's lock").toBeLessThan(1500);
    await held;
  });
});

describe("/cancel rules (docs/api/cancel.md)", () => {
  it("rule 1: cancels registered, skipped and retrying one-shots by ID or key, with 204 and an empty body", async () => {
    for (const status of ["registered", "skipped", "retrying"]) {
      for (const by of ["id", "key"] as const) {
        const job = await schedule({ "ttr-custom-key": `r1-${status}-${by}` });
        await setTriggerStatus(api.db, job.triggerId, status);
        const res = await cancel(by === "id" ? { "ttr-trigger-id": job.triggerId } : { "ttr-custom-key": `r1-${status}-${by}` });
        expect(res.status).toBe(204);
        expect(res.body.length).toBe(0);
        expect((await triggerById(api.db, job.triggerId))?.status).toBe("cancelled");
      }
    }
  });

  it("rule 1: a retrying trigger's planned retry is dropped", async () => {
    const job = await schedule({ "ttr-custom-key": "retry-drop" });
    await setTriggerStatus(api.db, job.triggerId, "retrying");
    await api.db.$executeRawUnsafe(
      `INSERT INTO executions (id, part_day, trigger_id, project_id, attempt_number, triggered_by, status, planned_at)
       SELECT gen_random_uuid(), t.part_day, t.id, $2::uuid, 2, 'retry', 'planned', now() + interval '1 hour' FROM triggers t WHERE t.id = $1::uuid`,
      job.triggerId, api.projectId,
    );
    expect((await cancel({ "ttr-custom-key": "retry-drop" })).status).toBe(204);
    const rows = await api.db.$queryRawUnsafe<Array<{ status: string }>>(`SELECT status::text FROM executions WHERE trigger_id = $1::uuid`, job.triggerId);
    expect(rows.map((r) => r.status)).toEqual(["cancelled"]);
  });

  it("rule 2: cancels a recurring trigger with its pending instance; queued instances are kept", async () => {
    const gen = await schedule({ "ttr-scheduled-at": "cron(*/5 * * * *)", "ttr-custom-key": "rec" });
    const [first] = await instancesOf(api.db, gen.triggerId);
    await setTriggerStatus(api.db, first!.id, "queued");
    await api.db.$executeRawUnsafe(
      `INSERT INTO triggers (id, project_id, generator_id, status, url, method, headers, tags, scheduled_at)
       VALUES (gen_random_uuid(), $1::uuid, $2::uuid, 'registered', 'http://x/', 'POST', '[]', '{}', now() + interval '5 minutes')`,
      api.projectId, gen.triggerId,
    );
    expect((await cancel({ "ttr-custom-key": "rec" })).status).toBe(204);
    expect((await generatorById(api.db, gen.triggerId))?.status).toBe("cancelled");
    const statuses = (await instancesOf(api.db, gen.triggerId)).map((i) => i.status);
    expect(statuses).toEqual(["queued", "cancelled"]);
  });

  it("rule 3: by key, the recurring trigger is cancelled before a one-shot with the same key", async () => {
    const job = await schedule({ "ttr-custom-key": "both" });
    // A one-shot and a recurring trigger can share a key when /declare created them under different tags.
    const gen = await schedule({ "ttr-scheduled-at": "cron(0 0 * * *)" });
    await api.db.$executeRawUnsafe(`UPDATE generators SET custom_key = 'both' WHERE id = $1::uuid`, gen.triggerId);
    expect((await cancel({ "ttr-custom-key": "both" })).status).toBe(204);
    expect((await generatorById(api.db, gen.triggerId))?.status).toBe("cancelled");
    expect((await triggerById(api.db, job.triggerId))?.status).toBe("registered");
    expect((await cancel({ "ttr-custom-key": "both" })).status).toBe(204);
    expect((await triggerById(api.db, job.triggerId))?.status).toBe("cancelled");
  });

  it("rule 4: uses no quota", async () => {
    const before = (await api.call("POST", "/schedule", { "ttr-api-key": api.apiKey, "ttr-url": "http://x/", "ttr-scheduled-at": "now | add 1h", "ttr-custom-key": "q" })).json();
    await cancel({ "ttr-custom-key": "q" });
    await cancel({ "ttr-custom-key": "q" });
    const after = (await api.call("POST", "/schedule", { "ttr-api-key": api.apiKey, "ttr-url": "http://x/", "ttr-scheduled-at": "now | add 1h" })).json();
    expect(after.monthQuotaRemaining).toBe(before.monthQuotaRemaining - 1);
  });

  it("404 by key for a skipped trigger past retention, whose key /schedule already treats as free (docs/retention.md)", async () => {
    const { triggerId } = await schedule({ "ttr-custom-key": "skipped-long-ago", "ttr-scheduled-at": "2000-01-01" });
    expect((await triggerById(api.db, triggerId))?.status).toBe("skipped");
    // its last change 40 days ago, and a retention pass has announced a cutoff of 30 days (its day not dropped yet)
    await api.db.$executeRawUnsafe("UPDATE triggers SET updated_at = now() - interval '40 days' WHERE id = $1::uuid", triggerId);
    await api.db.$executeRawUnsafe("INSERT INTO retention_state (id, cutoff, updated_at) VALUES (1, now() - interval '30 days', now()) ON CONFLICT (id) DO UPDATE SET cutoff = EXCLUDED.cutoff");
    await rejected({ "ttr-api-key": api.apiKey, "ttr-custom-key": "skipped-long-ago" }, 404, "NotFound", "Job not found");
    const again = await schedule({ "ttr-custom-key": "skipped-long-ago" });
    expect(again.triggerId).not.toBe(triggerId);
  });
});
