// What the chart's terminationGracePeriodSeconds relies on (docs/operations.md): on
// SIGTERM an executor finishes the attempts it has in flight, records them,
// and exits 0 as soon as they are done, not at the end of its grace period.
import { afterAll, beforeAll, expect, it } from "vitest";
import { settled } from "../support/rows.js";
import { printLogsOnFailure, startSystem, type System } from "../support/system.js";
import { startTarget, type Target } from "../support/target.js";

const HOLD_MS = 2000;
const TRIGGERS = 5;

let sys: System;
printLogsOnFailure(() => sys);
let target: Target;

beforeAll(async () => {
  target = await startTarget();
  // held requests answer 200 after HOLD_MS
  target.on("/slow", (_req, res) => {
    setTimeout(() => res.writeHead(200, { "content-type": "text/plain" }).end("done"), HOLD_MS);
  });
  sys = await startSystem({ executors: 1 });
});
afterAll(async () => {
  await sys?.stop();
  await target?.close();
});

it("SIGTERM: the executor completes the 5 attempts in flight, then exits 0 well before its grace period", async () => {
  const executor = sys.services.find((s) => s.name === "executor")!;
  const triggerIds: string[] = [];
  for (let i = 0; i < TRIGGERS; i++) {
    const res = await sys.call("POST", "/schedule", {
      "ttr-api-key": sys.apiKey,
      "ttr-url": `${target.base}/slow?n=${i}`,
      "ttr-scheduled-at": "now",
    });
    expect(res.status).toBe(200);
    triggerIds.push(res.json().triggerId);
  }

  // all five are at the target, which holds them
  await target.waitFor("/slow", TRIGGERS, 15_000);
  const lastArrival = Math.max(...target.hits("/slow").map((h) => h.at));
  const signalledAt = Date.now();
  expect(signalledAt - lastArrival).toBeLessThan(HOLD_MS); // still in flight

  const code = await sys.kill(executor, "SIGTERM");
  const tookMs = Date.now() - signalledAt;
  expect(code).toBe(0);
  // It waited for the held responses, and no longer than it had to: the
  // default grace (EXECUTOR_SHUTDOWN_GRACE_SECONDS) is 330 s.
  expect(Date.now()).toBeGreaterThanOrEqual(lastArrival + HOLD_MS);
  expect(tookMs).toBeLessThan(10_000);

  // Every attempt was recorded before the process left: nothing is left for
  // another executor or the reaper.
  for (const id of triggerIds) {
    const [execution] = await settled(sys.db, id, 1, 5000);
    expect(execution!.status).toBe("complete");
    expect(execution!.responseStatus).toBe(200);
    expect(execution!.responseBody).toBe("done");
  }
  expect(target.hits("/slow")).toHaveLength(TRIGGERS);
});
