// The whole story a program tells with @ttr/client and nothing but an API
// key, against ttr running as processes (api, scheduler, executor) and a
// real target: schedule, wait for the outcome, list, read the dead letter,
// replay it, and see the replay arrive.
import { createClient, type Execution, type TtrClient } from "@ttr/client";
import { afterAll, beforeAll, expect, it } from "vitest";
import { printLogsOnFailure, startSystem, type System } from "../../../test/support/system.js";
import { startTarget, type Target } from "../../../test/support/target.js";

let sys: System;
printLogsOnFailure(() => sys);
let target: Target;
let ttr: TtrClient;

beforeAll(async () => {
  target = await startTarget();
  sys = await startSystem();
  ttr = createClient({ baseUrl: sys.base, apiKey: sys.apiKey });
});
afterAll(async () => {
  await sys?.stop();
  await target?.close();
});

/** Polls `read` through the client until `done` holds. */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not after ${timeoutMs} ms; last seen ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

it("schedule → dead letter → list → executions → replay → the replay arrives", async () => {
  let answer = 500;
  target.on("/orders", (_req, res) => res.writeHead(answer, { "content-type": "text/plain" }).end(answer === 500 ? "down for maintenance" : "ok"));

  const scheduled = await ttr.schedule({
    url: `${target.base}/orders`,
    scheduledAt: "now",
    customKey: "order-1001",
    tags: ["orders"],
    json: { order: 1001 },
  });
  expect(scheduled).toMatchObject({ kind: "job", operation: "schedule" });
  const id = scheduled.triggerId;

  // No tag policy asks for retries: the failed attempt is a dead letter and
  // the trigger is completed.
  const failed = await until(
    () => ttr.getTrigger(id),
    (d) => d.trigger.status === "completed" && d.executions.every((e) => e.status === "complete"),
    "the trigger completes",
  );
  expect(failed.executions).toHaveLength(1);
  expect(failed.executions[0]).toMatchObject({
    attemptNumber: 1,
    triggeredBy: "scheduler",
    responseStatus: 500,
    responseBody: "down for maintenance",
    errorMessage: null,
    isDeadLetter: true,
  });
  expect(target.hits("/orders")).toHaveLength(1);

  const { triggers } = await ttr.listTriggers({ status: "completed", tag: "orders" });
  expect(triggers.map((t) => [t.id, t.customKey, t.url])).toEqual([[id, "order-1001", `${target.base}/orders`]]);

  const deadLetters: Execution[] = [];
  for await (const page of ttr.executionPages({ deadLetterOnly: true, limit: 10 })) deadLetters.push(...page.executions);
  expect(deadLetters.map((e) => [e.triggerId, e.attemptNumber])).toEqual([[id, 1]]);

  // The target is back: replay the dead letter.
  answer = 200;
  const { execution } = await ttr.replayTrigger(id);
  expect(execution).toMatchObject({ triggerId: id, attemptNumber: 2, triggeredBy: "replay", status: "planned" });

  const [original, replayed] = await target.waitFor("/orders", 2, 15_000);
  expect(replayed!.method).toBe("POST");
  expect(replayed!.body.toString()).toBe('{"order":1001}');
  expect(replayed!.body.equals(original!.body)).toBe(true);

  const done = await until(
    () => ttr.listExecutions({ triggerId: id }),
    (l) => l.executions.length === 2 && l.executions.every((e) => e.status === "complete"),
    "the replay is recorded",
  );
  // Newest first: the replay succeeded; the first attempt stays a dead letter.
  expect(done.executions.map((e) => [e.attemptNumber, e.triggeredBy, e.responseStatus, e.isDeadLetter])).toEqual([
    [2, "replay", 200, false],
    [1, "scheduler", 500, true],
  ]);
  expect((await ttr.getTrigger(id)).trigger.status).toBe("completed");
}, 60_000);
