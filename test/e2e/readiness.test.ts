// /readyz of each service started against a Redis that is not there: it
// answers 503 within a second and names the store, while /healthz says the
// process is alive.
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "@ttr/platform";
import { afterAll, beforeAll, expect, it } from "vitest";
import { freshDatabase, redisPrefix, type TestDatabase } from "../support/db.js";
import { request } from "../support/http.js";
import { eventually } from "../support/rows.js";
import { closedPort } from "../support/ports.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
let database: TestDatabase;
let noRedis: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  database = await freshDatabase();
  noRedis = `redis://127.0.0.1:${await closedPort()}`;
});
afterAll(async () => {
  for (const child of children) child.kill("SIGKILL");
  await database?.drop();
});

async function start(service: "api" | "scheduler" | "executor"): Promise<number> {
  const port = await freePort();
  const child = spawn(process.execPath, [path.join(root, "services", service, "dist", "main.js")], {
    env: {
      PATH: process.env.PATH ?? "",
      DATABASE_URL: database.url,
      REDIS_URL: noRedis,
      TTR_REDIS_PREFIX: redisPrefix(),
      LOG_LEVEL: "error",
      HOST: "127.0.0.1",
      PORT: String(port),
      METRICS_PORT: String(port),
    },
    stdio: "ignore",
  });
  children.push(child);
  await eventually(
    async () => ((await request(`http://127.0.0.1:${port}`, "GET", "/healthz").catch(() => null))?.status === 200 ? true : undefined),
    20_000,
    `${service} to answer /healthz`,
  );
  return port;
}

it.each(["api", "scheduler", "executor"] as const)("%s: /readyz is 503 within a second, naming redis", async (service) => {
  const port = await start(service);
  for (let i = 0; i < 3; i++) {
    const started = Date.now();
    const res = await request(`http://127.0.0.1:${port}`, "GET", "/readyz");
    expect(Date.now() - started).toBeLessThan(1000);
    expect(res.status).toBe(503);
    expect(res.json()).toEqual({ status: "unavailable", down: ["redis"] });
  }
});
