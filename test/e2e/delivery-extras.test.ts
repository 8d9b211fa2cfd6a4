// honorRetryAfter and notifyUrl end to end, through real HTTP: the system
// as processes, a real target answering 429/503 with Retry-After, and a
// real receiver of dead-letter notifications (docs/delivery-extras.md).
import { execFile } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import type { TestApi } from "../support/api.js";
import { eventually, settled } from "../support/rows.js";
import { signIn, type TestSession } from "../support/session.js";
import { printLogsOnFailure, startSystem, type System } from "../support/system.js";
import { startTarget, type Target } from "../support/target.js";

const run = promisify(execFile);
const cli = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "packages", "cli", "dist", "main.js");

let sys: System;
printLogsOnFailure(() => sys);
let target: Target;
let session: TestSession;

beforeAll(async () => {
  target = await startTarget();
  // one attempt at a time, so a notification that hangs would show if it held the executor up
  sys = await startSystem({ env: { TTR_NOTIFY_RETRY_DELAYS_SECONDS: "1,1,1", EXECUTOR_CONCURRENCY: "1", LOG_LEVEL: "info" } });
  session = await signIn(sys as unknown as TestApi);
});
afterAll(async () => {
  await sys?.stop();
  await target?.close();
});

async function policy(body: Record<string, unknown>) {
  const res = await sys.call("POST", "/tag-policies", { "ttr-api-key": sys.apiKey, "Content-Type": "application/json" }, JSON.stringify(body));
  expect(res.status, res.text).toBe(200);
  return res.json().tagPolicy;
}

async function schedule(pathName: string, tags: string, body?: string): Promise<string> {
  const headers = { "ttr-api-key": sys.apiKey, "ttr-url": `${target.base}${pathName}`, "ttr-scheduled-at": "now", "ttr-tags": tags, "content-type": "application/json" };
  const res = await sys.call("POST", "/schedule", headers, body);
  expect(res.status, res.text).toBe(200);
  return res.json().triggerId as string;
}

/** Answers the given responses in turn, then 200. */
function answers(pathName: string, replies: Array<[number, Record<string, string>]>) {
  let n = 0;
  target.on(pathName, (_req, res) => {
    const [status, headers] = replies[n++] ?? [200, {}];
    res.writeHead(status, headers).end();
  });
}

async function triggerDetail(id: string) {
  return session.get(`/triggers/${id}`);
}

describe("honorRetryAfter: true", () => {
  const RETRY = { retryStrategy: "fixed", retryInitialDelaySeconds: 0, retryMaxAttempts: 3, retryMaxDelaySeconds: 3, retryOn: "non_2xx" };

  it("a 503 with Retry-After seconds and a 429 with an HTTP date delay the next retry, capped by retryMaxDelaySeconds", { timeout: 60_000 }, async () => {
    expect(await policy({ tag: "ra", ...RETRY, honorRetryAfter: true })).toMatchObject({ honorRetryAfter: true });
    answers("/ra", [
      [503, { "Retry-After": "2" }],
      [429, { "Retry-After": new Date(Date.now() + 120_000).toUTCString() }],
    ]);
    const id = await schedule("/ra", "ra");
    const hits = await target.waitFor("/ra", 3, 30_000);
    const rows = await settled(sys.db, id, 3, 10_000);
    expect(rows.map((r) => r.responseStatus)).toEqual([503, 429, 200]);
    expect(rows[1]!.plannedAt.getTime() - rows[0]!.completedAt!.getTime()).toBe(2000);
    expect(rows[2]!.plannedAt.getTime() - rows[1]!.completedAt!.getTime()).toBe(3000);
    expect(hits[1]!.at - hits[0]!.at).toBeGreaterThanOrEqual(1900);
    expect(hits[2]!.at - hits[1]!.at).toBeGreaterThanOrEqual(2900);
  });

  it("without it the same answers are retried at the policy's own delay, and a 500's Retry-After is ignored", { timeout: 60_000 }, async () => {
    expect(await policy({ tag: "ra-off", ...RETRY })).not.toHaveProperty("honorRetryAfter");
    answers("/ra-off", [[503, { "Retry-After": "30" }]]);
    const off = await schedule("/ra-off", "ra-off");
    const offRows = await settled(sys.db, off, 2, 15_000);
    expect(offRows[1]!.plannedAt.getTime() - offRows[0]!.completedAt!.getTime()).toBe(0);

    await policy({ tag: "ra-500", ...RETRY, honorRetryAfter: true });
    answers("/ra-500", [[500, { "Retry-After": "30" }]]);
    const other = await schedule("/ra-500", "ra-500");
    const otherRows = await settled(sys.db, other, 2, 15_000);
    expect(otherRows[1]!.plannedAt.getTime() - otherRows[0]!.completedAt!.getTime()).toBe(0);
  });
});

describe("notifyUrl", () => {
  it("POSTs {event, execution, trigger} once per dead letter, signed, retried after a failure; the dashboard shows it sent", { timeout: 60_000 }, async () => {
    await policy({ tag: "dl", notifyUrl: `${target.base}/notify`, signing: true });
    answers("/fails", [[500, {}]]);
    answers("/notify", [[500, {}]]);
    const id = await schedule("/fails", "dl", '{"n":1}');
    const notes = await target.waitFor("/notify", 2, 30_000);

    const detail = await eventually(async () => {
      const d = await triggerDetail(id);
      return d.executions[0]?.notification?.status === "sent" ? d : undefined;
    }, 15_000, "notification sent");
    const [execution] = detail.executions;
    expect(execution).toMatchObject({ isDeadLetter: true, responseStatus: 500, notification: { status: "sent", attempts: 2, error: null } });

    const body = JSON.parse(notes[1]!.body.toString());
    expect(body.event).toBe("dead_letter");
    const { notification: _, ...shown } = execution;
    expect(body.execution).toEqual(shown);
    expect(body.trigger).toEqual({ ...detail.trigger, status: body.trigger.status, updatedAt: body.trigger.updatedAt });
    expect(body.trigger).toMatchObject({ id, url: `${target.base}/fails`, tags: ["dl"], body: '{"n":1}' });
    expect(notes[0]!.body.equals(notes[1]!.body)).toBe(true);
    expect(notes[1]!.headers["content-type"]).toBe("application/json");

    // signed like the deliveries of a signing policy, with one id for every try
    const { stdout } = await run(process.execPath, [cli, "project", "signing-secret", "--project", sys.projectId, "--json"], { env: sys.env });
    const { secret } = JSON.parse(stdout);
    for (const note of notes) {
      const headers = Object.fromEntries(Object.entries(note.headers).map(([k, v]) => [k, String(v)]));
      expect(new Webhook(secret).verify(note.body, headers)).toMatchObject({ event: "dead_letter" });
      expect(headers["webhook-id"]).toBe(`dead_letter_${execution.id}`);
    }
    // exactly one notification: no further POST arrives
    await new Promise((r) => setTimeout(r, 2500));
    expect(target.hits("/notify")).toHaveLength(2);
  });

  it("is tried four times in all, then shown failed with the last error; it never holds firing up; its log names the receiver's origin only", { timeout: 60_000 }, async () => {
    const origin = target.base;
    const secretUrl = `${origin.replace("//", "//notify-user:pw-secret-7@")}/notify-down?token=q-secret-7`;
    await policy({ tag: "dl-down", notifyUrl: secretUrl });
    // the first try is answered only after 5 s
    let tries = 0;
    target.on("/notify-down", (_req, res) => void setTimeout(() => res.writeHead(503).end(), tries++ === 0 ? 5000 : 0));
    answers("/fails-too", [[404, {}]]);
    const id = await schedule("/fails-too", "dl-down");
    await target.waitFor("/notify-down", 1, 15_000);
    // meanwhile, with one attempt at a time, other triggers still fire at once
    const sentAt = Date.now();
    await schedule("/ok", "");
    const [ok] = await target.waitFor("/ok", 1, 10_000);
    expect(ok!.at - sentAt).toBeLessThan(3000);

    const detail = await eventually(async () => {
      const d = await triggerDetail(id);
      return d.executions[0]?.notification?.status === "failed" ? d : undefined;
    }, 20_000, "notification failed");
    expect(detail.executions[0].notification).toEqual({ status: "failed", attempts: 4, error: "HTTP 503" });
    expect(target.hits("/notify-down")).toHaveLength(4);
    expect(target.hits("/notify-down")[0]!.headers["webhook-signature"]).toBeUndefined();
    expect(target.hits("/notify-down")[0]!.headers.authorization).toBe(`Basic ${Buffer.from("notify-user:pw-secret-7").toString("base64")}`);

    const logged = sys.services.flatMap((s) => s.output).join("");
    expect(logged).not.toMatch(/pw-secret-7|q-secret-7|notify-down/);
    const lines = logged.split("\n").filter((l) => l.includes('"dead-letter notification"'));
    expect(lines.map((l) => JSON.parse(l))).toContainEqual(expect.objectContaining({ receiver: origin, status: "failed", try: 4, error: "HTTP 503" }));
  });

  it("a 2xx from the receiver is a success even when its body holds a zero byte (a gzip answer): sent once", { timeout: 30_000 }, async () => {
    await policy({ tag: "dl-binary", notifyUrl: `${target.base}/notify-binary` });
    target.on("/notify-binary", (_req, res) => res.writeHead(200, { "Content-Type": "application/octet-stream" }).end(Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x00])));
    answers("/fails-binary", [[500, {}]]);
    const id = await schedule("/fails-binary", "dl-binary");
    const detail = await eventually(async () => {
      const d = await triggerDetail(id);
      return d.executions[0]?.notification ? d : undefined;
    }, 15_000, "notification recorded");
    expect(detail.executions[0].notification).toEqual({ status: "sent", attempts: 1, error: null });
    await new Promise((r) => setTimeout(r, 1500));
    expect(target.hits("/notify-binary")).toHaveLength(1);
  });

  it("its outcome is still recorded when a retention pass moves the trigger to a newer day between its tries", { timeout: 30_000 }, async () => {
    await policy({ tag: "dl-moved", notifyUrl: `${target.base}/notify-moved` });
    answers("/fails-moved", [[500, {}]]);
    let id = "";
    let tries = 0;
    target.on("/notify-moved", (_req, res) => {
      if (tries++ > 0) return void res.writeHead(200).end();
      // before the first answer: what a pass does to a trigger that must stay, out of a day it removes
      void (async () => {
        const later = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
        await sys.db.$queryRawUnsafe("SELECT ttr_ensure_partitions($1::date, $1::date)", later);
        await sys.db.$executeRawUnsafe("UPDATE triggers SET part_day = $2::date WHERE id = $1::uuid", id, later);
        await sys.db.$executeRawUnsafe("UPDATE executions SET part_day = $2::date WHERE trigger_id = $1::uuid", id, later);
        res.writeHead(503).end();
      })();
    });
    id = await schedule("/fails-moved", "dl-moved");
    const detail = await eventually(async () => {
      const d = await triggerDetail(id);
      return d.executions[0]?.notification?.status === "sent" ? d : undefined;
    }, 15_000, "notification sent");
    expect(detail.executions[0].notification).toEqual({ status: "sent", attempts: 2, error: null });
  });

  it("without notifyUrl a dead letter sends nothing and its execution has no notification", { timeout: 30_000 }, async () => {
    await policy({ tag: "dl-none", maxConcurrent: 2 });
    answers("/fails-quiet", [[500, {}]]);
    const before = target.received.length;
    const id = await schedule("/fails-quiet", "dl-none");
    await settled(sys.db, id, 1, 10_000);
    await new Promise((r) => setTimeout(r, 1500));
    expect(target.received.length).toBe(before + 1);
    const [execution] = (await triggerDetail(id)).executions;
    expect(execution.isDeadLetter).toBe(true);
    expect(execution).not.toHaveProperty("notification");
  });
});
