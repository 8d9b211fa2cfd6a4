// ttr as it runs for real: api, schedulers and executors as separate
// processes on a fresh database and Redis prefix.
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createDb, createProject, type Db } from "@ttr/db";
import { freePort } from "@ttr/platform";
import { afterEach } from "vitest";
import { freshDatabase, redisPrefix, redisUrl, type TestDatabase } from "./db.js";
import { request } from "./http.js";
import { unwatchApi, watchApi } from "./openapi-conformance.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

export interface Service {
  name: string;
  child: ChildProcess;
  port: number;
  output: string[];
}

export interface System {
  base: string;
  db: Db;
  database: TestDatabase;
  projectId: string;
  apiKey: string;
  env: Record<string, string>;
  services: Service[];
  call: (method: string, path: string, headers?: Record<string, string | string[] | undefined>, body?: string | Buffer) => ReturnType<typeof request>;
  startService(kind: "scheduler" | "executor", extraEnv?: Record<string, string>): Promise<Service>;
  kill(service: Service, signal?: NodeJS.Signals): Promise<number | null>;
  stop(): Promise<void>;
}

export interface SystemOptions {
  schedulers?: number;
  executors?: number;
  env?: Record<string, string>;
  quota?: number;
}

/** Waits until the service's /readyz answers 200. */
export async function waitReady(port: number, service: Service, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (service.child.exitCode !== null) throw new Error(`${service.name} exited early:\n${service.output.join("")}`);
    const ok = await request(`http://127.0.0.1:${port}`, "GET", "/readyz").then((r) => r.status === 200, () => false);
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${service.name} not ready after ${timeoutMs} ms:\n${service.output.join("")}`);
}

/**
 * Starts one service (`main`: its dist/main.js, from the repository root) as
 * a process of its own with exactly `env` (and `nodeFlags` before the
 * script, such as the V8 flags it runs with in production), keeping the last
 * lines of its output; waits for its /readyz unless `ready` is false.
 */
export async function launchService(name: string, main: string, env: Record<string, string>, port: number, ready = true, nodeFlags: string[] = []): Promise<Service> {
  const child = spawn(process.execPath, [...nodeFlags, path.join(root, main)], { env, stdio: ["ignore", "pipe", "pipe"] });
  const service: Service = { name, child, port, output: [] };
  const keep = (c: Buffer) => {
    service.output.push(c.toString());
    if (service.output.length > 400) service.output.shift();
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  if (name === "api") {
    // Its answers are checked against its OpenAPI document while it runs.
    watchApi(`http://127.0.0.1:${port}`);
    child.once("exit", () => unwatchApi(`http://127.0.0.1:${port}`));
  }
  if (ready) {
    try {
      await waitReady(port, service);
    } catch (err) {
      child.kill("SIGKILL");
      throw err;
    }
  }
  return service;
}

/**
 * After each test of the file that failed, prints the last lines each
 * service of `system()` wrote, so a failure seen only in CI explains itself
 * (a scheduler that never promoted, an executor that crashed).
 */
export function printLogsOnFailure(system: () => System | undefined): void {
  afterEach((ctx) => {
    const sys = system();
    if (ctx.task.result?.state !== "fail" || sys === undefined) return;
    for (const s of sys.services) console.log(`--- ${s.name} (pid ${s.child.pid}, exit ${s.child.exitCode ?? s.child.signalCode ?? "none"}) ---\n${s.output.join("").slice(-20_000)}`);
  });
}

/** Sends `signal` and resolves with the exit code once the process has exited. */
export function killService(service: Service, signal: NodeJS.Signals = "SIGTERM"): Promise<number | null> {
  return new Promise<number | null>((resolve) => {
    if (service.child.exitCode !== null || service.child.signalCode !== null) return resolve(service.child.exitCode);
    service.child.once("exit", (code) => resolve(code));
    service.child.kill(signal);
  });
}

/** What every service of a test needs: its database, Redis with a key prefix of its own, quiet logs, a small pool. */
export function serviceEnv(databaseUrl: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "",
    DATABASE_URL: databaseUrl,
    REDIS_URL: redisUrl(),
    TTR_REDIS_PREFIX: redisPrefix(),
    LOG_LEVEL: "warn",
    DB_POOL_SIZE: "5",
  };
}

export async function startSystem(opts: SystemOptions = {}): Promise<System> {
  const database = await freshDatabase();
  const env: Record<string, string> = {
    ...serviceEnv(database.url),
    // seals signing secrets; the CLI run against this system takes it from `env`
    TTR_SECRET_KEY: randomBytes(32).toString("base64"),
    ...opts.env,
  };
  const services: Service[] = [];

  const launch = async (name: string, main: string, extraEnv: Record<string, string>, port: number) => {
    const service = await launchService(name, main, { ...env, ...extraEnv }, port);
    services.push(service);
    return service;
  };

  const apiPort = await freePort();
  await launch("api", "services/api/dist/main.js", { PORT: String(apiPort), HOST: "127.0.0.1" }, apiPort);

  const startService = async (kind: "scheduler" | "executor", extraEnv: Record<string, string> = {}) => {
    const port = await freePort();
    return launch(kind, `services/${kind}/dist/main.js`, { METRICS_PORT: String(port), ...extraEnv }, port);
  };
  for (let i = 0; i < (opts.schedulers ?? 1); i++) await startService("scheduler");
  for (let i = 0; i < (opts.executors ?? 1); i++) await startService("executor");

  const db = createDb(database.url, { max: 4, applicationName: "ttr-test" });
  const { projectId, apiKey } = await createProject(db, "e2e", opts.quota ?? 100000);
  const base = `http://127.0.0.1:${apiPort}`;

  const kill = killService;

  return {
    base,
    db,
    database,
    projectId,
    apiKey,
    env,
    services,
    call: (method, p, headers, body) => request(base, method, p, headers, body),
    startService,
    kill,
    async stop() {
      await Promise.all(services.map((s) => kill(s, "SIGKILL")));
      await db.$disconnect();
      await database.drop();
    },
  };
}
