// Retries (docs/api/tag-policies.md, retries; docs/concepts.md, dead letters) end to end.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestApi } from "../support/api.js";
import { eventually, insertPolicy, settled } from "../support/rows.js";
import { signIn } from "../support/session.js";
import { printLogsOnFailure, startSystem, type System } from "../support/system.js";
import { startTarget, type Target } from "../support/target.js";

let sys: System;
printLogsOnFailure(() => sys);
let target: Target;

beforeAll(async () => {
  target = await startTarget();
  sys = await startSystem({ executors: 2 });
  target.on("/s302", (_req, res) => res.writeHead(302, { Location: "/elsewhere" }).end());
  target.on("/s404", (_req, res) => res.writeHead(404).end());
  target.on("/s503", (_req, res) => res.writeHead(503).end());
  target.on("/hang", () => {});
});
afterAll(async () => {
  await sys?.stop();
  await target?.close();
});

async function schedule(url: string, tags: string) {
  const res = await sys.call("POST", "/schedule", { "ttr-api-key": sys.apiKey, "ttr-url": url, "ttr-scheduled-at": "now", "ttr-tags": tags });
  expect(res.status, res.text).toBe(200);
  return res.json().triggerId as string;
}

describe("retry delays", () => {
  it("exponential: initial × 2^(n−1), measured at the target within ±1 s", async () => {
    await insertPolicy(sys.db, sys.projectId, "expo", { retry_strategy: "exponential", retry_initial_delay_seconds: 1, retry_max_attempts: 4 });
    target.on("/expo", (_req, res) => res.writeHead(500).end());
    const id = await schedule(`${target.base}/expo`, "expo");
    const hits = await target.waitFor("/expo", 4, 20_000);
    const rows = await settled(sys.db, id, 4, 5000);
    [1000, 2000, 4000].forEach((delay, i) => {
      const gap = hits[i + 1]!.at - hits[i]!.at;
      expect(gap).toBeGreaterThanOrEqual(delay - 1000);
      expect(gap).toBeLessThanOrEqual(delay + 1000);
      expect(rows[i + 1]!.plannedAt.getTime() - rows[i]!.completedAt!.getTime()).toBe(delay);
    });
    expect(rows.map((r) => r.isDeadLetter)).toEqual([false, false, false, true]);
  }, 30_000);
});

describe("retryOn classes against 3xx, 4xx, 5xx, a refused connection and a timeout", () => {
  const failures = {
    "3xx": () => `${target.base}/s302`,
    "4xx": () => `${target.base}/s404`,
    "5xx": () => `${target.base}/s503`,
    refused: () => "http://127.0.0.1:9/refused",
    timeout: () => `${target.base}/hang`,
  };
  const expected: Record<string, Record<keyof typeof failures, boolean>> = {
    network_only: { "3xx": false, "4xx": false, "5xx": false, refused: true, timeout: true },
    "5xx_and_network": { "3xx": false, "4xx": false, "5xx": true, refused: true, timeout: true },
    non_2xx: { "3xx": true, "4xx": true, "5xx": true, refused: true, timeout: true },
  };

  it("retries exactly the failures each class covers", async () => {
    const runs: Array<{ id: string; retryOn: string; failure: keyof typeof failures }> = [];
    for (const retryOn of Object.keys(expected)) {
      const tag = `on-${retryOn.replace(/_/g, "-")}`;
      await insertPolicy(sys.db, sys.projectId, tag, { retry_strategy: "fixed", retry_initial_delay_seconds: 0, retry_max_attempts: 2, retry_on: retryOn, request_timeout_seconds: 1 });
      for (const failure of Object.keys(failures) as Array<keyof typeof failures>) {
        runs.push({ id: await schedule(failures[failure](), tag), retryOn, failure });
      }
    }
    for (const run of runs) {
      const retried = expected[run.retryOn]![run.failure];
      const rows = await settled(sys.db, run.id, retried ? 2 : 1, 15_000);
      expect(rows.length, `${run.retryOn} × ${run.failure}`).toBe(retried ? 2 : 1);
      expect(rows.at(-1)!.isDeadLetter, `${run.retryOn} × ${run.failure}`).toBe(true);
      if (run.failure === "timeout") expect(rows[0]!.errorMessage).toBe('{"errorMessage":"Request timed out after 1s"}');
    }
    await new Promise((r) => setTimeout(r, 1500));
    for (const run of runs) {
      const [{ n } = { n: -1 }] = await sys.db.$queryRawUnsafe<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM executions WHERE trigger_id = $1::uuid`, run.id);
      expect(n, `${run.retryOn} × ${run.failure}`).toBe(expected[run.retryOn]![run.failure] ? 2 : 1);
    }
  }, 60_000);
});

describe("the merged policy of two tags (docs/api/tag-policies.md, several tags)", () => {
  it("exponential wins, lowest maxAttempts, highest initial delay, most restrictive retryOn", async () => {
    await insertPolicy(sys.db, sys.projectId, "merge-a", { retry_strategy: "fixed", retry_initial_delay_seconds: 1, retry_max_attempts: 5, retry_on: "non_2xx" });
    await insertPolicy(sys.db, sys.projectId, "merge-b", { retry_strategy: "exponential", retry_initial_delay_seconds: 2, retry_max_attempts: 3, retry_on: "network_only" });
    const http500 = await schedule(`${target.base}/s503`, "merge-a,merge-b");
    const refused = await schedule("http://127.0.0.1:9/merged", "merge-a,merge-b");
    const refusedRows = await settled(sys.db, refused, 3, 20_000);
    expect(refusedRows).toHaveLength(3);
    expect(refusedRows[1]!.plannedAt.getTime() - refusedRows[0]!.completedAt!.getTime()).toBe(2000);
    expect(refusedRows[2]!.plannedAt.getTime() - refusedRows[1]!.completedAt!.getTime()).toBe(4000);
    const httpRows = await settled(sys.db, http500, 1);
    expect(httpRows).toHaveLength(1);
    expect(httpRows[0]!.isDeadLetter).toBe(true);
  }, 30_000);
});

describe("cancelling a retrying trigger (docs/api/tag-policies.md, retries)", () => {
  it("stops further attempts; the last failed attempt is not a dead letter", async () => {
    await insertPolicy(sys.db, sys.projectId, "cancel-retry", { retry_strategy: "fixed", retry_initial_delay_seconds: 3 });
    target.on("/cancel-me", (_req, r) => r.writeHead(500).end());
    const res = await sys.call("POST", "/schedule", { "ttr-api-key": sys.apiKey, "ttr-url": `${target.base}/cancel-me`, "ttr-scheduled-at": "now", "ttr-tags": "cancel-retry", "ttr-custom-key": "cancel-me" });
    const id = res.json().triggerId as string;
    await settled(sys.db, id, 1);
    const cancelled = await sys.call("DELETE", "/cancel", { "ttr-api-key": sys.apiKey, "ttr-custom-key": "cancel-me" });
    expect(cancelled.status).toBe(204);
    await new Promise((r) => setTimeout(r, 4500));
    expect(target.hits("/cancel-me")).toHaveLength(1);
    const rows = await sys.db.$queryRawUnsafe<Array<{ status: string; is_dead_letter: boolean }>>(
      `SELECT status::text, is_dead_letter FROM executions WHERE trigger_id = $1::uuid ORDER BY attempt_number`,
      id,
    );
    expect(rows).toEqual([{ status: "complete", is_dead_letter: false }, { status: "cancelled", is_dead_letter: false }]);
  }, 20_000);
});

describe("a retrying trigger moved by custom key (docs/concepts.md, trigger states)", () => {
  it("into the past it is skipped and its retry still goes out, at the retry's time with the new request; back to the future it is retrying again", async () => {
    await insertPolicy(sys.db, sys.projectId, "moved-retry", { retry_strategy: "fixed", retry_initial_delay_seconds: 4, retry_on: "non_2xx" });
    target.on("/moved-fail", (_req, r) => r.writeHead(500).end());
    target.on("/moved-ok", (_req, r) => r.writeHead(200).end("ok"));
    const send = async (url: string, at: string, extra: Record<string, string> = {}) => {
      const res = await sys.call("POST", "/schedule", { "ttr-api-key": sys.apiKey, "ttr-url": url, "ttr-scheduled-at": at, "ttr-tags": "moved-retry", "ttr-custom-key": "moved", ...extra });
      expect(res.status, res.text).toBe(200);
      return res.json() as { triggerId: string; scheduledAt: string; operation: string };
    };
    const created = await send(`${target.base}/moved-fail`, "now");
    const [first] = await settled(sys.db, created.triggerId, 1);
    const session = await signIn(sys as unknown as TestApi);
    const status = async () => (await session.get<{ trigger: { status: string } }>(`/triggers/${created.triggerId}`)).trigger.status;
    await eventually(async () => ((await status()) === "retrying" ? true : undefined), 5000, "retrying");

    const past = await send(`${target.base}/moved-ok`, "2020-01-01T00:00:00Z", { "x-version": "past" });
    expect(past).toMatchObject({ triggerId: created.triggerId, operation: "reschedule", scheduledAt: created.scheduledAt });
    expect(await status()).toBe("skipped");
    await send(`${target.base}/moved-ok`, "now | add 1h", { "x-version": "future" });
    expect(await status()).toBe("retrying");
    await send(`${target.base}/moved-ok`, "2020-01-01T00:00:00Z", { "x-version": "past-again" });
    expect(await status()).toBe("skipped");

    const [hit] = await target.waitFor("/moved-ok", 1, 10_000);
    const due = first!.completedAt!.getTime() + 4000;
    expect(hit!.at).toBeGreaterThanOrEqual(due - 5);
    expect(hit!.at).toBeLessThanOrEqual(due + 2500);
    expect(hit!.headers["x-version"]).toBe("past-again");
    const rows = await settled(sys.db, created.triggerId, 2);
    expect(rows.map((r) => [r.attemptNumber, r.triggeredBy, r.responseStatus, r.isDeadLetter])).toEqual([[1, "scheduler", 500, false], [2, "retry", 200, false]]);
    expect(await status()).toBe("completed");
    expect(target.hits("/moved-fail")).toHaveLength(1);
  }, 30_000);

  it("skipped so, Retry now is refused (410) as on any skipped trigger; its retry still waits for its time", async () => {
    await insertPolicy(sys.db, sys.projectId, "moved-retry-now", { retry_strategy: "fixed", retry_initial_delay_seconds: 600, retry_on: "non_2xx" });
    target.on("/moved-now-fail", (_req, r) => r.writeHead(500).end());
    const headers = { "ttr-api-key": sys.apiKey, "ttr-tags": "moved-retry-now", "ttr-custom-key": "moved-now" };
    const id = (await sys.call("POST", "/schedule", { ...headers, "ttr-url": `${target.base}/moved-now-fail`, "ttr-scheduled-at": "now" })).json().triggerId as string;
    await settled(sys.db, id, 1);
    const session = await signIn(sys as unknown as TestApi);
    await eventually(async () => ((await session.get<{ trigger: { status: string } }>(`/triggers/${id}`)).trigger.status === "retrying" ? true : undefined), 5000, "retrying");
    const moved = await sys.call("POST", "/schedule", { ...headers, "ttr-url": `${target.base}/moved-now-ok`, "ttr-scheduled-at": "2020-01-01T00:00:00Z" });
    expect(moved.status, moved.text).toBe(200);
    const retry = await session.call("POST", `/triggers/${id}/retry`);
    expect(retry.status, retry.text).toBe(410);
    expect(retry.json()).toEqual({ _tag: "Gone", message: "Trigger cannot be retried (status=skipped)" });
    const planned = await sys.db.$queryRawUnsafe<Array<{ status: string; due: boolean }>>(
      `SELECT status::text, planned_at > now() + interval '500 seconds' AS due FROM executions WHERE trigger_id = $1::uuid AND attempt_number = 2`,
      id,
    );
    expect(planned).toEqual([{ status: "planned", due: true }]);
  }, 30_000);
});

describe("replays and retryMaxAttempts (docs/api/tag-policies.md, retries)", () => {
  it("a failed replay past the limit is a dead letter at once; earlier flags stay", async () => {
    await insertPolicy(sys.db, sys.projectId, "replay-cap", { retry_strategy: "fixed", retry_initial_delay_seconds: 0, retry_max_attempts: 2 });
    const id = await schedule(`${target.base}/s503`, "replay-cap");
    const first = await settled(sys.db, id, 2, 10_000);
    expect(first.map((r) => r.isDeadLetter)).toEqual([false, true]);
    const session = await signIn(sys as unknown as TestApi);
    const replay = await session.call("POST", `/triggers/${id}/replay`);
    expect(replay.status, replay.text).toBe(202);
    expect(replay.json().execution).toMatchObject({ attemptNumber: 3, triggeredBy: "replay", status: "planned" });
    const rows = await settled(sys.db, id, 3, 10_000);
    await new Promise((r) => setTimeout(r, 1500));
    const after = await sys.db.$queryRawUnsafe<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM executions WHERE trigger_id = $1::uuid`, id);
    expect(after[0]!.n).toBe(3);
    expect(rows.map((r) => [r.attemptNumber, r.triggeredBy, r.isDeadLetter])).toEqual([[1, "scheduler", false], [2, "retry", true], [3, "replay", true]]);
  }, 30_000);
});

describe("dead letters in the dashboard (docs/concepts.md, dead letters)", () => {
  it("GET /executions?deadLetterOnly=true lists only dead letters", async () => {
    const ok = await schedule(`${target.base}/fine`, "dl");
    const bad = await schedule(`${target.base}/s404`, "dl");
    await settled(sys.db, ok);
    await settled(sys.db, bad);
    const session = await signIn(sys as unknown as TestApi);
    const { executions } = await session.get<{ executions: Array<{ triggerId: string; isDeadLetter: boolean }> }>("/executions?deadLetterOnly=true&limit=500");
    expect(executions.length).toBeGreaterThan(0);
    expect(executions.every((e) => e.isDeadLetter)).toBe(true);
    expect(executions.some((e) => e.triggerId === bad)).toBe(true);
    expect(executions.some((e) => e.triggerId === ok)).toBe(false);
  });
});
