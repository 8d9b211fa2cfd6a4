// Lost attempts (docs/concepts.md: lost attempts, responses that cannot be recorded), with the
// test-only short timeout and grace (docs/configuration.md).
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, expect, it } from "vitest";
import { eventually, executionsOf, triggerById } from "../support/rows.js";
import { printLogsOnFailure, startSystem, type System } from "../support/system.js";
import { startTarget, type Target } from "../support/target.js";

let sys: System;
printLogsOnFailure(() => sys);
let target: Target;

beforeAll(async () => {
  target = await startTarget();
  sys = await startSystem({ env: { TTR_DEFAULT_TIMEOUT_SECONDS: "2", TTR_REAP_GRACE_SECONDS: "1" } });
});
afterAll(async () => {
  await sys?.stop();
  await target?.close();
});

const DIED = "Executor died (status=started past reap_after)";

async function schedule(path: string) {
  const res = await sys.call("POST", "/schedule", { "ttr-api-key": sys.apiKey, "ttr-url": `${target.base}${path}`, "ttr-scheduled-at": "now" });
  expect(res.status).toBe(200);
  return res.json().triggerId as string;
}

function closedAsDied(triggerId: string, timeoutMs = 15_000) {
  return eventually(async () => {
    const [e] = await executionsOf(sys.db, triggerId);
    return e?.status === "complete" ? e : undefined;
  }, timeoutMs, "the attempt to be closed");
}

it("a gzip response is not recorded: the attempt stays started, then is closed as Executor died", async () => {
  target.on("/gzip", (_req, res) => res.writeHead(200, { "Content-Encoding": "gzip" }).end(gzipSync("hello hello hello")));
  const id = await schedule("/gzip");
  await target.waitFor("/gzip", 1);
  const open = await eventually(async () => {
    const [e] = await executionsOf(sys.db, id);
    return e?.status === "started" ? e : undefined;
  }, 5000, "the attempt to start");
  expect(open.responseStatus).toBeNull();
  expect((await triggerById(sys.db, id))?.status).toBe("running");

  const e = await closedAsDied(id);
  expect(e).toMatchObject({ errorMessage: DIED, responseStatus: null, responseBody: null, responseHeaders: null, responseSize: null, isDeadLetter: false });
  // closed no earlier than timeout + grace after it started
  expect(e.completedAt!.getTime() - e.startedAt!.getTime()).toBeGreaterThanOrEqual(3000);
  expect((await triggerById(sys.db, id))?.status).toBe("completed");
  expect(await executionsOf(sys.db, id)).toHaveLength(1);
});

it("an executor killed mid-attempt: the request is not sent again and the attempt is closed as Executor died", async () => {
  target.on("/hold", () => {
    /* never answers */
  });
  const executor = sys.services.find((s) => s.name === "executor")!;
  const id = await schedule("/hold");
  await target.waitFor("/hold", 1);
  await sys.kill(executor, "SIGKILL");
  await sys.startService("executor");

  const e = await closedAsDied(id, 20_000);
  expect(e).toMatchObject({ errorMessage: DIED, isDeadLetter: false, responseStatus: null });
  expect((await triggerById(sys.db, id))?.status).toBe("completed");
  await new Promise((r) => setTimeout(r, 1500));
  expect(target.hits("/hold")).toHaveLength(1);
  expect(await executionsOf(sys.db, id)).toHaveLength(1);
});

it("a new active scheduler closes nothing in its first 10 s: executors that outlived an outage record first", { timeout: 60_000 }, async () => {
  target.on("/gzip-late", (_req, res) => res.writeHead(200, { "Content-Encoding": "gzip" }).end(gzipSync("late")));
  const id = await schedule("/gzip-late");
  await target.waitFor("/gzip-late", 1);
  const scheduler = sys.services.find((s) => s.name === "scheduler")!;
  await sys.kill(scheduler, "SIGTERM");
  // past its reap time (timeout 2 s + grace 1 s) before any scheduler is active again
  await new Promise((r) => setTimeout(r, 3500));
  const restarted = Date.now();
  await sys.startService("scheduler");
  await new Promise((r) => setTimeout(r, 7000));
  expect((await executionsOf(sys.db, id))[0]?.status).toBe("started");
  const e = await closedAsDied(id, 25_000);
  expect(e.errorMessage).toBe(DIED);
  expect(e.completedAt!.getTime()).toBeGreaterThanOrEqual(restarted + 10_000);
});
