// Several schedulers and executors together (docs/operations.md): every trigger is
// fired exactly once, and a standby scheduler takes over within 5 s.
import { afterAll, beforeAll, expect, it } from "vitest";
import { request } from "../support/http.js";
import { printLogsOnFailure, startSystem, type Service, type System } from "../support/system.js";
import { startTarget, type Target } from "../support/target.js";

let sys: System;
printLogsOnFailure(() => sys);
let target: Target;

beforeAll(async () => {
  target = await startTarget();
  sys = await startSystem({ schedulers: 2, executors: 2 });
});
afterAll(async () => {
  await sys?.stop();
  await target?.close();
});

async function isLeader(s: Service): Promise<boolean> {
  const res = await request(`http://127.0.0.1:${s.port}`, "GET", "/metrics").catch(() => null);
  return /^ttr_scheduler_leader\{[^}]*\} 1$/m.test(res?.text ?? "");
}

it("two schedulers and two executors fire every trigger exactly once", async () => {
  const n = 300;
  const due = new Date(Math.floor(Date.now() / 1000) * 1000 + 6000).toISOString();
  for (let i = 0; i < n; i += 50) {
    const replies = await Promise.all(
      Array.from({ length: Math.min(50, n - i) }, (_, k) =>
        sys.call("POST", "/schedule", { "ttr-api-key": sys.apiKey, "ttr-url": `${target.base}/once/${i + k}`, "ttr-scheduled-at": due }),
      ),
    );
    expect(replies.map((r) => r.status).every((s) => s === 200)).toBe(true);
  }
  const [{ pending } = { pending: -1 }] = await sys.db.$queryRawUnsafe<Array<{ pending: number }>>(`SELECT count(*)::int AS pending FROM triggers WHERE status = 'registered'`);
  expect(pending).toBe(n);
  const deadline = Date.now() + 20_000;
  while (target.received.filter((r) => r.url.startsWith("/once/")).length < n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  await new Promise((r) => setTimeout(r, 1000));
  const counts = new Map<string, number>();
  for (const r of target.received) if (r.url.startsWith("/once/")) counts.set(r.url, (counts.get(r.url) ?? 0) + 1);
  expect(counts.size).toBe(n);
  expect([...counts.values()].every((c) => c === 1)).toBe(true);
  const leaders = await Promise.all(sys.services.filter((s) => s.name === "scheduler").map(isLeader));
  expect(leaders.filter(Boolean)).toHaveLength(1);
});

it("killing the active scheduler: the standby takes over within 5 s and triggers keep firing", async () => {
  const schedulers = sys.services.filter((s) => s.name === "scheduler");
  const active = (await Promise.all(schedulers.map(async (s) => ((await isLeader(s)) ? s : null)))).find(Boolean)!;
  const standby = schedulers.find((s) => s !== active)!;
  await sys.kill(active, "SIGKILL");
  const killedAt = Date.now();
  while (!(await isLeader(standby))) {
    expect(Date.now() - killedAt).toBeLessThan(5000);
    await new Promise((r) => setTimeout(r, 100));
  }
  const res = await sys.call("POST", "/schedule", { "ttr-api-key": sys.apiKey, "ttr-url": `${target.base}/after-failover`, "ttr-scheduled-at": "now" });
  expect(res.status).toBe(200);
  const [hit] = await target.waitFor("/after-failover", 1, 5000);
  expect(hit!.at - new Date(res.json().scheduledAt).getTime()).toBeLessThan(2000);
});
