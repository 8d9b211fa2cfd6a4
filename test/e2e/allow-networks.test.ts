// TTR_BLOCK_PRIVATE_NETWORKS with TTR_ALLOW_NETWORKS, end to end: api,
// scheduler and an executor as processes. Every loopback address is blocked,
// and 127.0.0.2/32 is let through: a target listening there is reached,
// while one on 127.0.0.3 gets nothing and its attempt is a Transport error.
// A malformed range keeps the executor from starting.
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, settled } from "../support/rows.js";
import { killService, launchService, printLogsOnFailure, startSystem, type System } from "../support/system.js";
import { startTarget, type Target } from "../support/target.js";

let sys: System;
printLogsOnFailure(() => sys);
let allowed: Target;
let other: Target;

beforeAll(async () => {
  allowed = await startTarget("127.0.0.2");
  other = await startTarget("127.0.0.3");
  // info: the executor's `attempt` lines, which name why a refused attempt failed
  sys = await startSystem({ env: { TTR_BLOCK_PRIVATE_NETWORKS: "true", TTR_ALLOW_NETWORKS: "127.0.0.2/32", TTR_NOTIFY_RETRY_DELAYS_SECONDS: "1,1,1", LOG_LEVEL: "info" } });
});
afterAll(async () => {
  await sys?.stop();
  await allowed?.close();
  await other?.close();
});

async function schedule(url: string): Promise<string> {
  const res = await sys.call("POST", "/schedule", { "ttr-api-key": sys.apiKey, "ttr-url": url, "ttr-scheduled-at": "now" });
  expect(res.status, res.text).toBe(200);
  return (res.json() as { triggerId: string }).triggerId;
}

describe("an executor with TTR_ALLOW_NETWORKS=127.0.0.2/32 under the private-network block", () => {
  it.each(["127.0.0.2", "[::ffff:127.0.0.2]"])("reaches a target on %s", async (host) => {
    const path = `/in/${host.length}`;
    const [e] = await settled(sys.db, await schedule(`http://${host}:${allowed.port}${path}`));
    expect(e).toMatchObject({ responseStatus: 200, errorMessage: null });
    expect(allowed.hits(path)).toHaveLength(1);
  });

  it.each(["127.0.0.3", "[::ffff:127.0.0.3]"])("refuses %s as a Transport error, and the executor's log says why; the target listening there receives nothing", async (host) => {
    const url = `http://${host}:${other.port}/out`;
    const triggerId = await schedule(url);
    const [e] = await settled(sys.db, triggerId);
    expect(e).toMatchObject({ responseStatus: null, errorMessage: `Transport error (POST ${url})`, isDeadLetter: true });
    expect(other.received).toHaveLength(0);
    // The record cannot tell a blocked address from a refused connection; the log line can.
    const logged = await eventually(async () =>
      sys.services
        .filter((s) => s.name === "executor")
        .flatMap((s) => s.output.join("").split("\n"))
        .filter((l) => l.includes(triggerId))
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .find((l) => l.message === "attempt"),
    );
    expect(logged).toMatchObject({ outcome: "network_failure", cause: expect.stringMatching(/^::ffff:7f00:3 is not a public address$|^127\.0\.0\.3 is not a public address$/) });
  });

  it("sends a dead-letter notification to an allowed address as it sends attempts there, and none to a refused one", async () => {
    const body = (tag: string, notifyUrl: string) => JSON.stringify({ tag, notifyUrl });
    for (const [tag, url] of [["note-in", `http://127.0.0.2:${allowed.port}/note`], ["note-out", `http://127.0.0.3:${other.port}/note`]]) {
      const res = await sys.call("POST", "/tag-policies", { "ttr-api-key": sys.apiKey, "Content-Type": "application/json" }, body(tag!, url!));
      expect(res.status, res.text).toBe(200);
    }
    allowed.on("/dead", (_req, res) => res.writeHead(500).end());
    for (const tag of ["note-in", "note-out"]) {
      const res = await sys.call("POST", "/schedule", { "ttr-api-key": sys.apiKey, "ttr-url": `http://127.0.0.2:${allowed.port}/dead`, "ttr-scheduled-at": "now", "ttr-tags": tag });
      expect(res.status, res.text).toBe(200);
    }
    const [note] = await allowed.waitFor("/note", 1, 15_000);
    expect(JSON.parse(note!.body.toString())).toMatchObject({ event: "dead_letter" });
    await new Promise((r) => setTimeout(r, 1000));
    expect(other.received).toHaveLength(0);
    const notes = sys.services
      .flatMap((s) => s.output.join("").split("\n"))
      .filter((l) => l.includes('"dead-letter notification"'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(notes).toContainEqual(expect.objectContaining({ receiver: `http://127.0.0.3:${other.port}`, status: "retrying", cause: "127.0.0.3 is not a public address" }));
  });
});

describe("a malformed TTR_ALLOW_NETWORKS", () => {
  it("stops the executor at start with one JSON line naming the variable and the entry", async () => {
    const service = await launchService(
      "executor",
      path.join("services", "executor", "dist", "main.js"),
      { ...sys.env, METRICS_PORT: "0", TTR_ALLOW_NETWORKS: "127.0.0.2/32,10.0.0.1" },
      0,
      false,
    );
    const code = await new Promise<number | null>((resolve) => service.child.once("exit", resolve));
    expect(code).toBe(1);
    const lines = service.output.join("").trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      level: "error",
      service: "executor",
      message: "executor stopped",
      error: expect.stringContaining('"TTR_ALLOW_NETWORKS" failed custom validation because "10.0.0.1" is not a CIDR range'),
    });
    await killService(service);
  });
});
