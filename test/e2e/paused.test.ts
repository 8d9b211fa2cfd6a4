// Pausing a tag (docs/api/tag-policies.md, pausing a tag), end to end
// through real HTTP: api, scheduler and executor as processes and a real
// target. A paused tag's due triggers wait while other tags fire; resuming
// releases them oldest first at the pace the policy's throughput, kept
// through the pause, allows.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { printLogsOnFailure, startSystem, type System } from "../support/system.js";
import { startTarget, type Target } from "../support/target.js";

let sys: System;
printLogsOnFailure(() => sys);
let target: Target;

beforeAll(async () => {
  target = await startTarget();
  sys = await startSystem({ executors: 1 });
});
afterAll(async () => {
  await sys?.stop();
  await target?.close();
});

const json = () => ({ "ttr-api-key": sys.apiKey, "Content-Type": "application/json" });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function schedule(path: string, tags: string, at = "now") {
  const res = await sys.call("POST", "/schedule", { "ttr-api-key": sys.apiKey, "ttr-url": `${target.base}${path}`, "ttr-scheduled-at": at, "ttr-tags": tags });
  expect(res.status, res.text).toBe(200);
  return res.json() as { triggerId: string; scheduledAt: string };
}

describe("paused: true on a tag policy", () => {
  it("holds the tag's due triggers, keeps its throughput, and resumes them oldest first within it", async () => {
    const created = await sys.call("POST", "/tag-policies", json(), JSON.stringify({ tag: "pz", throughput: { "1s": 1 } }));
    expect(created.status, created.text).toBe(200);
    const id = created.json().tagPolicy.id as string;
    const paused = await sys.call("PUT", `/tag-policies/${id}`, json(), JSON.stringify({ paused: true }));
    expect(paused.json().tagPolicy).toMatchObject({ paused: true, throughput: { "1s": 1 } });

    // Due one second apart, so each falls due (and is held) on its own.
    const base = Date.now();
    const due = [];
    for (const [i, s] of [1, 2, 3, 4].entries()) due.push(await schedule(`/pz?n=${i}`, "pz", new Date(base + s * 1000).toISOString()));
    const free = await schedule("/free", "other");
    await target.waitFor("/free", 1, 5000);
    expect(free.triggerId).toBeTruthy();

    await sleep(Math.max(0, new Date(due[3]!.scheduledAt).getTime() + 2500 - Date.now()));
    expect(target.hits("/pz")).toHaveLength(0);
    const statuses = await sys.db.$queryRawUnsafe<Array<{ status: string }>>(
      "SELECT status::text FROM triggers WHERE id = ANY($1::uuid[])",
      due.map((d) => d.triggerId),
    );
    expect(statuses.map((s) => s.status)).toEqual(Array(4).fill("queued"));

    const resumed = await sys.call("PUT", `/tag-policies/${id}`, json(), JSON.stringify({ paused: false }));
    expect(resumed.status, resumed.text).toBe(200);
    expect(resumed.json().tagPolicy).not.toHaveProperty("paused");
    expect(resumed.json().tagPolicy.throughput).toEqual({ "1s": 1 });

    const hits = await target.waitFor("/pz", 4, 15_000);
    const inOrder = [...hits].sort((a, b) => a.at - b.at);
    expect(inOrder.map((h) => h.url)).toEqual([0, 1, 2, 3].map((i) => `/pz?n=${i}`));
    // {"1s": 1} still applies: never two starts within one second
    for (let i = 1; i < inOrder.length; i++) expect(inOrder[i]!.at - inOrder[i - 1]!.at).toBeGreaterThanOrEqual(900);
  }, 40_000);

  it("a policy that only pauses holds its tag until it is resumed", async () => {
    const created = await sys.call("POST", "/tag-policies", json(), JSON.stringify({ tag: "hold-only", paused: true }));
    expect(created.status, created.text).toBe(200);
    await schedule("/hold-only", "hold-only");
    await sleep(3000);
    expect(target.hits("/hold-only")).toHaveLength(0);
    const resumed = await sys.call("PUT", `/tag-policies/${created.json().tagPolicy.id}`, json(), JSON.stringify({ paused: false }));
    expect(resumed.status).toBe(200);
    await target.waitFor("/hold-only", 1, 5000);
  }, 20_000);
});
