// Signed deliveries end to end: a real target checks ttr's signatures with
// an implementation of Standard Webhooks that is not ttr's (the
// standardwebhooks package) and with @ttr/client's verifyWebhook, before
// and during a rotation of the project's secret. Also: a target of a tag
// without signing gets no new header, and a database dump holds no signing
// secret in clear.
import { execFile } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import { verifyWebhook } from "../../packages/client/src/verify-webhook.js";
import { printLogsOnFailure, startSystem, type System } from "../support/system.js";
import { type Received, startTarget, type Target } from "../support/target.js";

const run = promisify(execFile);
const cli = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "packages", "cli", "dist", "main.js");

let sys: System;
printLogsOnFailure(() => sys);
let target: Target;

beforeAll(async () => {
  target = await startTarget();
  sys = await startSystem();
});
afterAll(async () => {
  await sys?.stop();
  await target?.close();
});

async function signingSecret(...flags: string[]): Promise<{ secret: string; previous: string | null }> {
  const { stdout } = await run(process.execPath, [cli, "project", "signing-secret", "--project", sys.projectId, ...flags, "--json"], { env: sys.env });
  return JSON.parse(stdout);
}

async function policy(body: Record<string, unknown>) {
  const res = await sys.call("POST", "/tag-policies", { "ttr-api-key": sys.apiKey, "Content-Type": "application/json" }, JSON.stringify(body));
  expect(res.status, res.text).toBe(200);
  return res.json().tagPolicy;
}

/** Schedules a POST with `body` for now and answers what the target received for it. */
async function deliver(pathName: string, tags: string, body: string): Promise<Received> {
  const before = target.hits(pathName).length;
  const res = await sys.call(
    "POST",
    "/schedule",
    { "ttr-api-key": sys.apiKey, "ttr-url": `${target.base}${pathName}`, "ttr-scheduled-at": "now", "ttr-tags": tags, "content-type": "application/json" },
    body,
  );
  expect(res.status, res.text).toBe(200);
  return (await target.waitFor(pathName, before + 1, 15_000))[before]!;
}

const plain = (r: Received) => Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, String(v)]));

describe("signing: true", () => {
  it("signs with the project's secret; standardwebhooks and verifyWebhook accept it; webhook-id is the execution", { timeout: 60_000 }, async () => {
    const first = await signingSecret();
    expect(first.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(first.previous).toBeNull();
    // asked again without --rotate: the same secret
    expect(await signingSecret()).toEqual(first);

    const stored = await policy({ tag: "signed", signing: true });
    expect(stored).toMatchObject({ tag: "signed", signing: true, retryStrategy: "none" });

    const body = JSON.stringify({ order: 42, note: "é ✓" });
    const got = await deliver("/signed", "signed", body);
    expect(got.body.toString()).toBe(body);
    const headers = plain(got);
    expect(headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(Math.abs(Number(headers["webhook-timestamp"]) - Date.now() / 1000)).toBeLessThan(30);

    expect(new Webhook(first.secret).verify(got.body, headers)).toEqual(JSON.parse(body));
    expect(await verifyWebhook({ secret: first.secret, headers, body: got.body })).toMatchObject({ id: headers["webhook-id"] });
    const [execution] = await sys.db.$queryRawUnsafe<Array<{ id: string }>>("SELECT id::text FROM executions WHERE id = $1::uuid", headers["webhook-id"]);
    expect(execution?.id).toBe(headers["webhook-id"]);
  });

  it("during a rotation both secrets sign, and each verifies on its own", { timeout: 90_000 }, async () => {
    const before = await signingSecret();
    const rotated = await signingSecret("--rotate");
    expect(rotated.previous).toBe(before.secret);
    expect(rotated.secret).not.toBe(before.secret);
    expect(await signingSecret()).toEqual(rotated);

    const body = JSON.stringify({ rotation: true });
    const got = await deliver("/signed", "signed", body);
    const headers = plain(got);
    expect(headers["webhook-signature"]!.split(" ")).toHaveLength(2);
    for (const secret of [rotated.secret, before.secret]) {
      expect(new Webhook(secret).verify(got.body, headers)).toEqual({ rotation: true });
      expect((await verifyWebhook({ secret, headers, body: got.body })).id).toBe(headers["webhook-id"]);
    }

    // a second rotation ends the first one's previous secret at once
    const again = await signingSecret("--rotate");
    expect(again.previous).toBe(rotated.secret);
    const last = plain(await deliver("/signed", "signed", body));
    expect(last["webhook-signature"]!.split(" ")).toHaveLength(2);
    expect(() => new Webhook(before.secret).verify(body, last)).toThrow();
    expect(new Webhook(again.secret).verify(body, last)).toEqual({ rotation: true });
  });

  it("a tag without signing gets no new header", async () => {
    await policy({ tag: "unsigned", maxConcurrent: 5 });
    for (const tags of ["unsigned", ""]) {
      const got = await deliver("/unsigned", tags, "{}");
      expect(Object.keys(got.headers).filter((h) => h.startsWith("webhook-"))).toEqual([]);
    }
  });

  it("an executor without TTR_SECRET_KEY refuses to start once a project has a signing secret", async () => {
    await expect(sys.startService("executor", { TTR_SECRET_KEY: "" })).rejects.toThrow(/TTR_SECRET_KEY is not set.*refusing to start/);
  });

  it("a database dump holds no signing secret in clear", async () => {
    const current = await signingSecret();
    const secrets = [current.secret, current.previous!];
    const url = new URL(sys.database.url);
    const { stdout } = await run("pg_dump", ["--data-only", "--no-owner", "-h", url.hostname, "-p", url.port || "5432", "-U", decodeURIComponent(url.username) || "postgres", url.pathname.slice(1)], {
      maxBuffer: 64 * 1024 * 1024,
    });
    expect(stdout).toContain("signing_secrets");
    for (const s of secrets) {
      expect(stdout).not.toContain(s);
      // nor the key material without its prefix, in base64 or hex
      const bytes = Buffer.from(s.slice("whsec_".length), "base64");
      expect(stdout).not.toContain(s.slice("whsec_".length, 30));
      expect(stdout).not.toContain(bytes.toString("hex").slice(0, 24));
    }
  });
});
