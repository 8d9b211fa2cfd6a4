// docs/operations.md: logs are JSON lines, one per request or attempt, and never
// carry API keys, passwords or session cookies.
import { afterAll, beforeAll, expect, it } from "vitest";
import { createUser } from "@ttr/db";
import { settled } from "../support/rows.js";
import { printLogsOnFailure, startSystem, type System } from "../support/system.js";
import { startTarget, type Target } from "../support/target.js";

let sys: System;
printLogsOnFailure(() => sys);
let target: Target;

beforeAll(async () => {
  target = await startTarget();
  sys = await startSystem({ env: { LOG_LEVEL: "info" } });
});
afterAll(async () => {
  await sys?.stop();
  await target?.close();
});

it("logs each request and attempt as a JSON line, without keys, passwords or cookies", async () => {
  const password = "a-very-secret-password";
  await createUser(sys.db, sys.projectId, "logs@example.com", password);
  const login = await sys.call("POST", "/auth/login", { "Content-Type": "application/json" }, JSON.stringify({ email: "logs@example.com", password }));
  expect(login.status).toBe(200);
  const cookie = String(login.headers["set-cookie"]?.[0]).split(";")[0]!;
  await sys.call("GET", "/triggers", { Cookie: cookie });
  const res = await sys.call("POST", "/schedule", {
    "ttr-api-key": sys.apiKey,
    "ttr-url": `${target.base}/logged`,
    "ttr-scheduled-at": "now",
    Authorization: "Bearer should-not-appear",
  });
  await settled(sys.db, res.json().triggerId);
  // refused by the HTTP parser before express sees it: still one line
  const huge = await sys.call("GET", "/project", { "x-big": "b".repeat(20_000) });
  expect(huge.status).toBe(431);
  await new Promise((r) => setTimeout(r, 300));

  const lines = sys.services.flatMap((s) => s.output.join("").split("\n")).filter((l) => l.trim() !== "");
  for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
  const all = lines.join("\n");
  for (const secret of [sys.apiKey, password, cookie.split("=")[1]!, "should-not-appear"]) expect(all).not.toContain(secret);
  const entries = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  expect(entries.filter((e) => e.service === "api" && e.message === "request" && e.path === "/schedule")).toHaveLength(1);
  expect(entries.filter((e) => e.service === "executor" && e.message === "attempt" && e.triggerId === res.json().triggerId)).toHaveLength(1);
  expect(entries.filter((e) => e.service === "api" && e.message === "request" && e.status === 431)).toEqual([expect.objectContaining({ refused: "HPE_HEADER_OVERFLOW" })]);
});
