// Each service started against a Redis that is not there: /readyz answers
// 503 within a second and names the store, while /healthz says the process
// is alive; every line it logs meanwhile is JSON, and the outage is logged
// once per connection, not at every reconnect.
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "@ttr/platform";
import { afterAll, beforeAll, expect, it } from "vitest";
import { freshDatabase, redisPrefix, type TestDatabase } from "../support/db.js";
import { request } from "../support/http.js";
import { eventually } from "../support/rows.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
let database: TestDatabase;
let noRedis: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  database = await freshDatabase();
  noRedis = `redis://127.0.0.1:${await freePort()}`;
});
afterAll(async () => {
  for (const child of children) child.kill("SIGKILL");
  await database?.drop();
});

async function start(service: "api" | "scheduler" | "executor"): Promise<{ port: number; output: string[] }> {
  const port = await freePort();
  const child = spawn(process.execPath, [path.join(root, "services", service, "dist", "main.js")], {
    env: {
      PATH: process.env.PATH ?? "",
      DATABASE_URL: database.url,
      REDIS_URL: noRedis,
      TTR_REDIS_PREFIX: redisPrefix(),
      LOG_LEVEL: "warn",
      HOST: "127.0.0.1",
      PORT: String(port),
      METRICS_PORT: String(port),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  const output: string[] = [];
  child.stdout?.on("data", (c: Buffer) => output.push(c.toString()));
  child.stderr?.on("data", (c: Buffer) => output.push(c.toString()));
  await eventually(
    async () => ((await request(`http://127.0.0.1:${port}`, "GET", "/healthz").catch(() => null))?.status === 200 ? true : undefined),
    20_000,
    `${service} to answer /healthz`,
  );
  return { port, output };
}

it.each(["api", "scheduler", "executor"] as const)("%s: /readyz is 503 within a second, naming redis", async (service) => {
  const { port, output } = await start(service);
  // Not checked against /openapi.json here (unlike other test apis): the
  // check runs inside the timed request, and its first run builds the
  // document's validators, which a busy machine took past the 1 s bound.
  // The executor names postgres too until its start check has passed
  // (docs/operations.md), which a busy machine can take past /healthz.
  await eventually(async () => {
    const res = await request(`http://127.0.0.1:${port}`, "GET", "/readyz");
    return (res.json() as { down?: string[] }).down?.includes("postgres") ? undefined : true;
  }, 10_000, `${service}'s start check`);
  for (let i = 0; i < 3; i++) {
    const started = Date.now();
    const res = await request(`http://127.0.0.1:${port}`, "GET", "/readyz");
    expect(Date.now() - started).toBeLessThan(1000);
    expect(res.status).toBe(503);
    expect(res.json()).toEqual({ status: "unavailable", down: ["redis"] });
  }
  // HEAD answers as GET on every service, with no body
  const head = await request(`http://127.0.0.1:${port}`, "HEAD", "/healthz");
  expect(head.status).toBe(200);
  expect(head.body.length).toBe(0);
  // ioredis retries the connection every few hundred ms meanwhile
  await new Promise((r) => setTimeout(r, 1500));
  const lines = output.join("").split("\n").filter((l) => l.trim() !== "");
  const parsed = lines.map((line) => {
    try {
      return JSON.parse(line) as { message?: string; connection?: string };
    } catch {
      throw new Error(`${service} logged a line that is not JSON: ${line}`);
    }
  });
  const outages = parsed.filter((l) => l.message === "redis unavailable").map((l) => l.connection);
  expect(outages.length).toBeGreaterThan(0);
  expect(new Set(outages).size, `${service} logged the same outage twice: ${outages.join(", ")}`).toBe(outages.length);
});
