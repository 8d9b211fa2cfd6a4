// Tag policies enforced across an executor fleet (docs/api/tag-policies.md: throughput,
// concurrency, several tags, when a limit is reached): three executors, one
// scheduler, a real target.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertPolicy, settled } from "../support/rows.js";
import { printLogsOnFailure, startSystem, type System } from "../support/system.js";
import { startTarget, type Target } from "../support/target.js";

let sys: System;
printLogsOnFailure(() => sys);
let target: Target;

beforeAll(async () => {
  target = await startTarget();
  sys = await startSystem({ executors: 3 });
});
afterAll(async () => {
  await sys?.stop();
  await target?.close();
});

async function schedule(path: string, tags: string, at = "now") {
  const res = await sys.call("POST", "/schedule", { "ttr-api-key": sys.apiKey, "ttr-url": `${target.base}${path}`, "ttr-scheduled-at": at, "ttr-tags": tags });
  expect(res.status, res.text).toBe(200);
  return res.json() as { triggerId: string; scheduledAt: string };
}

/** Largest number of request starts at the target within any window of `ms`. */
function densest(times: number[], ms: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let best = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[i]! - sorted[j]! >= ms) j++;
    best = Math.max(best, i - j + 1);
  }
  return best;
}

describe("concurrency (docs/api/tag-policies.md, concurrency)", () => {
  it("maxConcurrent 2 holds across 3 executors while 20 due triggers all arrive", async () => {
    await insertPolicy(sys.db, sys.projectId, "conc", { max_concurrent: 2 });
    let inFlight = 0;
    let peak = 0;
    target.on("/conc", (_req, res) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      setTimeout(() => {
        inFlight--;
        res.writeHead(200).end("ok");
      }, 1000);
    });
    const at = new Date(Math.floor(Date.now() / 1000) * 1000 + 2000).toISOString();
    await Promise.all(Array.from({ length: 20 }, () => schedule("/conc", "conc", at)));
    await target.waitFor("/conc", 20, 40_000);
    expect(peak).toBe(2);
  }, 60_000);
});

describe("throughput (docs/api/tag-policies.md, throughput)", () => {
  it('{"2s": 3} with maxConcurrent: no 2-second window at the target holds more than 3 starts', async () => {
    await insertPolicy(sys.db, sys.projectId, "tput", { throughput: JSON.stringify({ "2s": 3 }), max_concurrent: 100 });
    await Promise.all(Array.from({ length: 12 }, () => schedule("/tput", "tput")));
    const hits = await target.waitFor("/tput", 12, 30_000);
    expect(densest(hits.map((h) => h.at), 2000)).toBeLessThanOrEqual(3);
  }, 40_000);

  it("rate 0 holds everything until the policy is deleted, then releases it (through /tag-policies)", async () => {
    const created = await sys.call("POST", "/tag-policies", { Authorization: `Bearer ${sys.apiKey}`, "Content-Type": "application/json" }, JSON.stringify({ tag: "paused", throughput: { "1s": 0 } }));
    expect(created.status, created.text).toBe(200);
    const policyId = created.json().tagPolicy.id as string;
    const held = await Promise.all(Array.from({ length: 5 }, () => schedule("/paused", "paused")));
    const free = await schedule("/free", "other");
    // A trigger without the held tag fires on time (When a limit is reached 2).
    const [hit] = await target.waitFor("/free", 1, 5000);
    expect(hit!.at - new Date(free.scheduledAt).getTime()).toBeLessThan(2000);
    await new Promise((r) => setTimeout(r, 2500));
    expect(target.hits("/paused")).toHaveLength(0);
    const statuses = await sys.db.$queryRawUnsafe<Array<{ status: string }>>(
      `SELECT status::text FROM triggers WHERE id = ANY($1::uuid[])`,
      held.map((h) => h.triggerId),
    );
    expect(statuses.every((s) => s.status === "queued")).toBe(true);
    // Parked under the tag that holds them, out of the scan for due attempts.
    const parked = await sys.db.$queryRawUnsafe<Array<{ heldBy: string | null }>>(
      `SELECT held_by AS "heldBy" FROM executions WHERE trigger_id = ANY($1::uuid[])`,
      held.map((h) => h.triggerId),
    );
    expect(parked.map((p) => p.heldBy)).toEqual(Array(5).fill("paused"));
    const deleted = await sys.call("DELETE", `/tag-policies/${policyId}`, { "ttr-api-key": sys.apiKey });
    expect(deleted.json()).toEqual({ ok: true });
    await target.waitFor("/paused", 5, 5000);
  }, 20_000);

  it("held attempts are released oldest first when the policy lets them through", async () => {
    const created = await sys.call("POST", "/tag-policies", { "ttr-api-key": sys.apiKey, "Content-Type": "application/json" }, JSON.stringify({ tag: "inorder", throughput: { "1s": 0 } }));
    expect(created.status, created.text).toBe(200);
    const policyId = created.json().tagPolicy.id as string;
    const base = Date.now();
    // Due one second apart, so each is parked as it falls due.
    const due = await Promise.all([1, 2, 3, 4, 5].map((s, i) => schedule(`/inorder?n=${i}`, "inorder", new Date(base + s * 1000).toISOString())));
    await new Promise((r) => setTimeout(r, Math.max(0, new Date(due[4]!.scheduledAt).getTime() + 1500 - Date.now())));
    expect(target.hits("/inorder")).toHaveLength(0);
    const put = await sys.call("PUT", `/tag-policies/${policyId}`, { "ttr-api-key": sys.apiKey, "Content-Type": "application/json" }, JSON.stringify({ throughput: {}, maxConcurrent: 1 }));
    expect(put.status, put.text).toBe(200);
    // One at a time (maxConcurrent 1), each released by a tick after the
    // previous one ended: about 4 s on a quiet machine, over 8 s seen while
    // the whole suite ran. The order is what this test is about.
    await target.waitFor("/inorder", 5, 15_000);
    expect(target.hits("/inorder").sort((a, b) => a.at - b.at).map((h) => h.url)).toEqual([0, 1, 2, 3, 4].map((i) => `/inorder?n=${i}`));
  }, 30_000);

  it("instances of a recurring trigger are held like one-shots (docs/api/schedule.md)", async () => {
    await insertPolicy(sys.db, sys.projectId, "paused-cron", { throughput: JSON.stringify({ "1h": 0 }) });
    const gen = await schedule("/paused-cron", "paused-cron", "cron(0 0 1 1 *)");
    const [instance] = await sys.db.$queryRawUnsafe<Array<{ id: string }>>(`SELECT id::text FROM triggers WHERE generator_id = $1::uuid`, gen.triggerId);
    await sys.db.$executeRawUnsafe(`UPDATE triggers SET scheduled_at = date_trunc('second', now()) WHERE id = $1::uuid`, instance!.id);
    await new Promise((r) => setTimeout(r, 2500));
    const [row] = await sys.db.$queryRawUnsafe<Array<{ status: string }>>(`SELECT status::text FROM triggers WHERE id = $1::uuid`, instance!.id);
    expect(row!.status).toBe("queued");
    expect(target.hits("/paused-cron")).toHaveLength(0);
  });

  it("several tags: every tag's limits apply (rate 0 on one blocks, concurrency on another caps)", async () => {
    await insertPolicy(sys.db, sys.projectId, "multi-a", { max_concurrent: 1 });
    await insertPolicy(sys.db, sys.projectId, "multi-b", { throughput: JSON.stringify({ "1m": 0 }) });
    let inFlight = 0;
    let peak = 0;
    target.on("/multi", (_req, res) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      setTimeout(() => {
        inFlight--;
        res.writeHead(200).end();
      }, 300);
    });
    await schedule("/multi-blocked", "multi-a,multi-b");
    await Promise.all(Array.from({ length: 4 }, () => schedule("/multi", "multi-a,free-tag")));
    await target.waitFor("/multi", 4, 15_000);
    expect(peak).toBe(1);
    expect(target.hits("/multi-blocked")).toHaveLength(0);
  }, 20_000);
});

describe("timeouts and retries (docs/api/tag-policies.md)", () => {
  it("fixed retries are sent at the failure time plus the delay, up to retryMaxAttempts, then a dead letter", async () => {
    await insertPolicy(sys.db, sys.projectId, "fixed", { retry_strategy: "fixed", retry_initial_delay_seconds: 2, retry_max_attempts: 3 });
    target.on("/fixed", (_req, res) => res.writeHead(503).end("busy"));
    const t = await schedule("/fixed", "fixed");
    const hits = await target.waitFor("/fixed", 3, 15_000);
    const rows = await settled(sys.db, t.triggerId, 3, 5000);
    expect(rows.map((r) => [r.attemptNumber, r.triggeredBy, r.isDeadLetter])).toEqual([[1, "scheduler", false], [2, "retry", false], [3, "retry", true]]);
    for (let i = 1; i < 3; i++) {
      const gap = hits[i]!.at - hits[i - 1]!.at;
      expect(gap).toBeGreaterThanOrEqual(2000 - 50);
      expect(gap).toBeLessThan(2000 + 1000 + 500);
      expect(rows[i]!.plannedAt.getTime() - rows[i - 1]!.completedAt!.getTime()).toBe(2000);
    }
    await new Promise((r) => setTimeout(r, 2500));
    expect(target.hits("/fixed")).toHaveLength(3);
  }, 30_000);
});
