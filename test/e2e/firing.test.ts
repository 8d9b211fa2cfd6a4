// The firing pipeline end to end (docs/concepts.md): api, scheduler and executor as
// processes, sending to a real target on 127.0.0.1; and what a slow tick logs.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, insertPolicy, instancesOf, settled, triggerById } from "../support/rows.js";
import { printLogsOnFailure, startSystem, type System } from "../support/system.js";
import { startTarget, type Target } from "../support/target.js";

let sys: System;
printLogsOnFailure(() => sys);
let target: Target;

beforeAll(async () => {
  target = await startTarget();
  sys = await startSystem();
  await insertPolicy(sys.db, sys.projectId, "short", { request_timeout_seconds: 1 });
});
afterAll(async () => {
  await sys?.stop();
  await target?.close();
});

async function schedule(path: string, extra: Record<string, string | string[]> = {}, method = "POST", body?: string | Buffer) {
  const res = await sys.call(method, "/schedule", { "ttr-api-key": sys.apiKey, "ttr-url": `${target.base}${path}`, "ttr-scheduled-at": "now", ...extra }, body);
  expect(res.status, res.text).toBe(200);
  return res.json() as { triggerId: string; scheduledAt: string };
}

describe("firing precision (docs/concepts.md)", () => {
  it("sends each trigger 0–2 s after its scheduled second, never before", async () => {
    const base = Math.floor(Date.now() / 1000) * 1000 + 2000;
    const planned = await Promise.all(
      [0, 1000, 1000, 2000, 3000].map((offset, i) =>
        schedule(`/on-time/${i}`, { "ttr-scheduled-at": new Date(base + offset + 250 * i).toISOString() }).then((r) => ({ ...r, i })),
      ),
    );
    for (const p of planned) {
      const [hit] = await target.waitFor(`/on-time/${p.i}`, 1, 10_000);
      const due = new Date(p.scheduledAt).getTime();
      expect(due % 1000).toBe(0);
      expect(hit!.at).toBeGreaterThanOrEqual(due);
      expect(hit!.at - due).toBeLessThan(2000);
    }
  });
});

describe("what is sent (docs/concepts.md)", () => {
  it("sends exactly the stored method, path, query, headers and body bytes, with new tracing headers", async () => {
    const body = Buffer.from([0x00, 0x01, 0xfe, 0xff, 0x41]);
    const t = await schedule("/exact?x=1&y=a%20b", {
      "X-Custom": "One",
      "x-repeat": ["1", "2"],
      "Accept-Encoding": "gzip",
      "Content-Type": "application/octet-stream",
      "ttr-tags": "exact",
    }, "PUT", body);
    const [hit] = await target.waitFor("/exact", 1);
    expect(hit!.method).toBe("PUT");
    expect(hit!.url).toBe("/exact?x=1&y=a%20b");
    expect(hit!.body).toEqual(body);
    const raw: Array<[string, string]> = [];
    for (let i = 0; i < hit!.rawHeaders.length; i += 2) raw.push([hit!.rawHeaders[i]!, hit!.rawHeaders[i + 1]!]);
    expect(raw).toEqual(expect.arrayContaining([["X-Custom", "One"], ["x-repeat", "1"], ["x-repeat", "2"], ["Accept-Encoding", "gzip"], ["Content-Type", "application/octet-stream"]]));
    const names = raw.map(([n]) => n.toLowerCase());
    expect(names.filter((n) => n.startsWith("ttr-"))).toEqual([]);
    expect(names).not.toContain("user-agent");
    expect(hit!.headers.host).toBe(`127.0.0.1:${target.port}`);
    expect(hit!.headers["content-length"]).toBe("5");
    expect(hit!.headers.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    expect(hit!.headers.b3).toMatch(/^[0-9a-f]{32}-[0-9a-f]{16}-1$/);

    // A replay resends the stored request unchanged but for the tracing headers.
    await settled(sys.db, t.triggerId);
    await sys.db.$executeRawUnsafe(
      `WITH t AS (UPDATE triggers SET status = 'queued', attempts = attempts + 1 WHERE id = $1::uuid AND status = 'completed' RETURNING id, part_day, project_id, attempts)
       INSERT INTO executions (id, part_day, trigger_id, project_id, attempt_number, triggered_by, status, planned_at)
       SELECT gen_random_uuid(), part_day, id, project_id, attempts, 'replay', 'planned', now() FROM t`,
      t.triggerId,
    );
    const [first, second] = await target.waitFor("/exact", 2);
    expect(second!.body).toEqual(first!.body);
    expect(second!.headers.traceparent).not.toBe(first!.headers.traceparent);
    expect(second!.headers.b3).not.toBe(first!.headers.b3);
    const rows = await settled(sys.db, t.triggerId, 2);
    expect(rows.map((r) => [r.attemptNumber, r.triggeredBy])).toEqual([[1, "scheduler"], [2, "replay"]]);
  });

  it("sends no body for GET", async () => {
    await schedule("/get-no-body", {}, "GET");
    const [hit] = await target.waitFor("/get-no-body", 1);
    expect(hit!.method).toBe("GET");
    expect(hit!.body.length).toBe(0);
    expect(hit!.headers["content-length"]).toBeUndefined();
  });
});

describe("outcomes and recording (docs/concepts.md)", () => {
  it("success: status, lowercase headers with repeats joined, body; trigger completed", async () => {
    target.on("/ok", (_req, res) => {
      res.setHeader("X-Multi", ["a", "b"]);
      res.writeHead(201, { "Content-Type": "text/plain" }).end("créé");
    });
    const t = await schedule("/ok");
    const [e] = await settled(sys.db, t.triggerId);
    expect(e).toMatchObject({ status: "complete", responseStatus: 201, responseBody: "créé", responseSize: 6, errorMessage: null, isDeadLetter: false, triggeredBy: "scheduler", attemptNumber: 1 });
    expect(e!.responseHeaders).toMatchObject({ "x-multi": "a, b", "content-type": "text/plain" });
    expect((await triggerById(sys.db, t.triggerId))?.status).toBe("completed");
  });

  it("HTTP failure: 500 is recorded and, without a retry policy, a dead letter", async () => {
    target.on("/fail", (_req, res) => res.writeHead(500).end("boom"));
    const t = await schedule("/fail");
    const [e] = await settled(sys.db, t.triggerId);
    expect(e).toMatchObject({ responseStatus: 500, responseBody: "boom", errorMessage: null, isDeadLetter: true });
    expect((await triggerById(sys.db, t.triggerId))?.status).toBe("completed");
  });

  it("a redirect is a failure and its Location is never requested", async () => {
    target.on("/moved", (_req, res) => res.writeHead(302, { Location: `${target.base}/moved-here` }).end());
    const t = await schedule("/moved");
    const [e] = await settled(sys.db, t.triggerId);
    expect(e).toMatchObject({ responseStatus: 302, isDeadLetter: true });
    expect(e!.responseHeaders?.location).toBe(`${target.base}/moved-here`);
    await new Promise((r) => setTimeout(r, 300));
    expect(target.hits("/moved-here")).toHaveLength(0);
  });

  it("network failure: a refused connection is a Transport error with the full URL", async () => {
    const url = "http://127.0.0.1:9/refused?q=1";
    const res = await sys.call("POST", "/schedule", { "ttr-api-key": sys.apiKey, "ttr-url": url, "ttr-scheduled-at": "now" });
    const [e] = await settled(sys.db, res.json().triggerId);
    expect(e).toMatchObject({ responseStatus: null, responseBody: null, responseHeaders: null, responseSize: null, errorMessage: `Transport error (POST ${url})`, isDeadLetter: true });
  });

  it("timeout: the tag's timeout applies and the message names it", async () => {
    target.on("/slow", (_req, res) => {
      setTimeout(() => res.writeHead(200).end("late"), 3000);
    });
    const t = await schedule("/slow", { "ttr-tags": "short" });
    const [e] = await settled(sys.db, t.triggerId, 1, 10_000);
    expect(e).toMatchObject({ responseStatus: null, errorMessage: '{"errorMessage":"Request timed out after 1s"}', timeoutSeconds: 1, isDeadLetter: true });
    const took = e!.completedAt!.getTime() - e!.startedAt!.getTime();
    expect(took).toBeGreaterThanOrEqual(1000);
    expect(took).toBeLessThan(2500);
  });

  it("a connection broken while the body is read is a Decode error, even after 200", async () => {
    target.on("/broken", (_req, res) => {
      res.writeHead(200, { "Content-Length": "1000" });
      res.write("partial");
      setTimeout(() => res.socket?.destroy(), 50);
    });
    const t = await schedule("/broken", {}, "GET");
    const [e] = await settled(sys.db, t.triggerId);
    expect(e).toMatchObject({ responseStatus: null, errorMessage: `Decode error (200 GET ${target.base}/broken)`, isDeadLetter: true });
  });

  it("keeps the first 10,240 bytes as UTF-8, a character cut at the limit becoming U+FFFD", async () => {
    const body = Buffer.concat([Buffer.alloc(10_239, "a"), Buffer.from("€"), Buffer.alloc(5000, "b")]);
    target.on("/big", (_req, res) => res.writeHead(200).end(body));
    const t = await schedule("/big");
    const [e] = await settled(sys.db, t.triggerId);
    expect(e!.responseSize).toBe(body.length);
    expect(e!.responseBody).toBe(`${"a".repeat(10_239)}\uFFFD`);
  });
});

describe("recurring triggers (docs/concepts.md)", () => {
  it("fires instance after instance, always with exactly one pending instance ahead", async () => {
    // A yearly expression, so no instance fires by itself during the test:
    // each round brings the pending instance forward to now instead.
    const gen = await schedule("/cron", { "ttr-scheduled-at": "cron(0 0 1 1 *)" });
    const nextNewYear = (from: number) => Date.UTC(new Date(from).getUTCFullYear() + 1, 0, 1);
    for (let round = 1; round <= 3; round++) {
      const pending = (await instancesOf(sys.db, gen.triggerId)).filter((i) => i.status === "registered");
      expect(pending).toHaveLength(1);
      await sys.db.$executeRawUnsafe(`UPDATE triggers SET scheduled_at = date_trunc('second', now()) WHERE id = $1::uuid`, pending[0]!.id);
      const hits = await target.waitFor("/cron", round, 5000);
      const next = await eventually(async () => {
        const all = await instancesOf(sys.db, gen.triggerId);
        const p = all.filter((i) => i.status === "registered");
        return all.length === round + 1 && p.length === 1 ? p[0] : undefined;
      }, 5000, "the next instance");
      expect(next.scheduledAt.getTime()).toBe(nextNewYear(hits[round - 1]!.at));
    }
    const instances = await instancesOf(sys.db, gen.triggerId);
    expect(instances.filter((i) => i.status === "registered")).toHaveLength(1);
    const fired = instances.filter((i) => i.status !== "registered");
    expect(fired).toHaveLength(3);
    for (const i of fired) {
      expect((await settled(sys.db, i.id)).map((e) => e.status)).toEqual(["complete"]);
      expect((await triggerById(sys.db, i.id))?.status).toBe("completed");
    }
  });
});

describe("a recurring trigger held by an api call as its instance is claimed", () => {
  it("does not hold the claim back: the instance and a one-shot of the same second are sent at once, and the next instance follows", { timeout: 30_000 }, async () => {
    const gen = await schedule("/held-cron", { "ttr-scheduled-at": "cron(0 0 1 1 *)" });
    const [pending] = (await instancesOf(sys.db, gen.triggerId)).filter((i) => i.status === "registered");
    // An edit or cancel of the recurring trigger locks it first (and would
    // then wait for the instance the scheduler has claimed).
    const client = new pg.Client({ connectionString: sys.database.url });
    await client.connect();
    try {
      await client.query("BEGIN");
      await client.query("SELECT 1 FROM generators WHERE id = $1::uuid FOR UPDATE", [gen.triggerId]);
      const due = new Date(Math.ceil((Date.now() + 1000) / 1000) * 1000);
      await sys.db.$executeRawUnsafe(`UPDATE triggers SET scheduled_at = $2 WHERE id = $1::uuid`, pending!.id, due);
      await schedule("/held-one-shot", { "ttr-scheduled-at": due.toISOString() });
      const [instance] = await target.waitFor("/held-cron", 1, 5000);
      const [oneShot] = await target.waitFor("/held-one-shot", 1, 5000);
      expect(instance!.at - due.getTime()).toBeLessThan(2000);
      expect(oneShot!.at - due.getTime()).toBeLessThan(2000);
    } finally {
      await client.query("COMMIT");
      await client.end();
    }
    // the sweep gives the recurring trigger its next instance once it is free
    await eventually(async () => {
      const next = (await instancesOf(sys.db, gen.triggerId)).filter((i) => i.status === "registered");
      return next.length === 1 ? next : undefined;
    }, 15_000, "the next instance");
  });
});

describe("a run cancelled on its own (docs/concepts.md)", () => {
  it("stays cancelled: the next instance comes after it, through /declare and a re-sent /schedule, until the schedule changes", async () => {
    // Yearly, so nothing fires during the test.
    const yearly = "cron(0 0 1 1 *)";
    const newYearAfter = (from: number) => Date.UTC(new Date(from).getUTCFullYear() + 1, 0, 1);
    const json = { "ttr-api-key": sys.apiKey, "content-type": "application/json" };
    const declareBody = JSON.stringify({ tag: "skips", items: [{ url: `${target.base}/skip`, customKey: "skip-yearly", scheduledAt: yearly }] });
    const declared = await sys.call("POST", "/declare", json, declareBody);
    expect(declared.status, declared.text).toBe(200);
    const genId = (declared.json() as { operations: Array<{ id: string }> }).operations[0]!.id;
    // Each call creates the next instance in its own transaction: there is one pending instance at every moment.
    const pendingAt = async (at: number, what: string) => {
      const pending = (await instancesOf(sys.db, genId)).filter((i) => i.status === "registered");
      expect(pending.map((p) => p.scheduledAt.toISOString()), what).toEqual([new Date(at).toISOString()]);
      return pending[0]!;
    };
    const first = newYearAfter(Date.now());
    let pending = await pendingAt(first, "the first instance");

    // DELETE /cancel by the instance's ID: that run is skipped, the next one planned.
    const cancel = await sys.call("DELETE", "/cancel", { "ttr-api-key": sys.apiKey, "ttr-trigger-id": pending.id });
    expect(cancel.status).toBe(204);
    expect((await triggerById(sys.db, pending.id))?.status).toBe("cancelled");
    const second = newYearAfter(first);
    pending = await pendingAt(second, "the instance after the cancelled run");

    // /declare re-creates the upcoming instance of an unchanged recurring trigger: still after the skipped run.
    const again = await sys.call("POST", "/declare", json, declareBody);
    expect(again.status, again.text).toBe(200);
    const replaced = pending.id;
    pending = await pendingAt(second, "the re-declared instance");
    expect(pending.id).not.toBe(replaced);

    // A /bulk cancel by ID skips a run too.
    const bulk = await sys.call("POST", "/bulk", json, JSON.stringify({ cancels: [{ id: pending.id }] }));
    expect(bulk.status, bulk.text).toBe(200);
    const third = newYearAfter(second);
    await pendingAt(third, "the instance after the second cancelled run");

    // Re-sent with the same schedule: the skipped runs stay skipped.
    const resend = await schedule("/skip", { "ttr-scheduled-at": yearly, "ttr-custom-key": "skip-yearly" });
    expect(resend.triggerId).toBe(genId);
    expect(new Date(resend.scheduledAt).getTime()).toBe(third);

    // A new schedule starts afresh.
    const july = await schedule("/skip", { "ttr-scheduled-at": "cron(0 0 1 7 *)", "ttr-custom-key": "skip-yearly" });
    expect(july.triggerId).toBe(genId);
    const now = new Date();
    const nextJuly = Date.UTC(now.getUTCFullYear() + (now.getUTCMonth() >= 6 ? 1 : 0), 6, 1);
    expect(new Date(july.scheduledAt).getTime()).toBe(nextJuly);
    await pendingAt(nextJuly, "the instance of the new schedule");
    expect(target.hits("/skip")).toHaveLength(0);
  });
});

describe("slow ticks (docs/operations.md)", () => {
  // While a lock holds up the active scheduler's transactions for over a
  // second, the tick that waited logs one warning naming the step that
  // waited and the round it was in.

  /** The scheduler's JSON lines whose message is `message`. */
  function logged(message: string): Array<Record<string, unknown>> {
    const scheduler = sys.services.find((s) => s.name === "scheduler")!;
    return scheduler.output
      .join("")
      .split("\n")
      .filter((line) => line.includes(message))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  }

  const HOLD_MS = 1500;

  it("a tick held up by a lock logs its steps, the waiting one included", async () => {
    // One fire shows the scheduler leads and ticks.
    const first = await sys.call("POST", "/schedule", { "ttr-api-key": sys.apiKey, "ttr-url": `${target.base}/slow-first`, "ttr-scheduled-at": "now" });
    expect(first.status).toBe(200);
    await target.waitFor("/slow-first", 1);

    // Ticks start just after each second: take the lock mid-second, so that
    // the next tick, not a sweep running at that moment, is the one that waits.
    await new Promise((r) => setTimeout(r, (1300 - (Date.now() % 1000)) % 1000));
    const client = new pg.Client({ connectionString: sys.database.url });
    await client.connect();
    // The held tick ends after the lock is released; a tick that was slow
    // for other reasons (a busy machine) and ended before is not the one.
    let releasedAt = Number.POSITIVE_INFINITY;
    try {
      await client.query("BEGIN");
      // Every transaction of the active scheduler first key-share locks the lease row.
      await client.query("SELECT 1 FROM scheduler_lease WHERE id = 1 FOR UPDATE");
      const held = await sys.call("POST", "/schedule", { "ttr-api-key": sys.apiKey, "ttr-url": `${target.base}/slow-held`, "ttr-scheduled-at": "now" });
      expect(held.status).toBe(200);
      await new Promise((r) => setTimeout(r, HOLD_MS));
      releasedAt = Date.now();
      await client.query("COMMIT");
    } finally {
      await client.end();
    }
    await target.waitFor("/slow-held", 1);

    const heldTick = () => logged("slow scheduler tick").find((l) => Date.parse(String(l.timestamp)) >= releasedAt);
    const line = await eventually(async () => heldTick(), 5000, "a slow-tick line from the held tick");
    expect(line).toMatchObject({ level: "warn", message: "slow scheduler tick" });
    // It names the step that waited for the lock: usually its first claim,
    // which then takes the trigger scheduled meanwhile; on a busy machine a
    // slow tick still running when the lock was taken waits in a later step.
    const steps = line.steps as Record<string, number>;
    const rounds = line.rounds as Array<Record<string, number>>;
    expect(line.ms).toBeGreaterThan(500);
    const [waitedIn, waitedMs] = Object.entries(steps).sort((a, b) => b[1] - a[1])[0]!;
    expect(["promoteMs", "heldMs", "dispatchMs"]).toContain(waitedIn);
    expect(waitedMs).toBeGreaterThan(500);
    // the round that waited says so too
    expect(rounds.some((r) => (r[waitedIn] ?? 0) > 500)).toBe(true);
    // a claim that waited takes the trigger scheduled meanwhile
    if (waitedIn === "promoteMs") expect(rounds.find((r) => (r.promoteMs ?? 0) > 500)!.promoted).toBeGreaterThanOrEqual(1);
    // the steps account for the whole tick
    const sum = Object.values(steps).reduce((a, b) => a + b, 0);
    expect(sum).toBeLessThanOrEqual((line.ms as number) + 1);
    expect(sum).toBeGreaterThan((line.ms as number) - 50);
    expect(typeof line.lateMs).toBe("number");
  });
});
