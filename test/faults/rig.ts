// A whole ttr of a fault test's own: its own PostgreSQL and Redis
// (servers.ts), the api, schedulers and executors as processes, and a
// recording target. The checks every fault ends with live here: each
// trigger sent exactly once, none before its second, and how long recovery
// took.
import { appendFileSync, mkdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { applyMigrations, createDb, createProject, type Db } from "@ttr/db";
import { freePort } from "@ttr/platform";
import { afterAll, beforeAll, expect } from "vitest";
import { request } from "../support/http.js";
import { killService, launchService, type Service, waitReady } from "../support/system.js";
import { startTarget, type Target } from "../support/target.js";
import { type PgServer, type RedisServer, startPostgres, startRedis } from "./servers.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The body of every 503 a storage outage gives (RELIABILITY.md). */
export const UNAVAILABLE = { _tag: "Unavailable", message: "Storage unavailable, try again" };

export type Kind = "api" | "scheduler" | "executor";

export interface RigOptions {
  schedulers?: number;
  executors?: number;
  /** Redis appends and syncs every write to disk, so a restart keeps its data */
  redisPersist?: boolean;
  env?: Record<string, string>;
  quota?: number;
  /** the services' DATABASE_URL, given the rig's server (a proxy in front of it, say); its own URL when not given */
  databaseUrl?: (server: PgServer) => Promise<string>;
}

export interface Rig {
  pg: PgServer;
  redis: RedisServer;
  target: Target;
  db: Db;
  api: Service;
  services: Service[];
  projectId: string;
  apiKey: string;
  start(kind: Kind, extraEnv?: Record<string, string>, ready?: boolean): Promise<Service>;
  kill(service: Service, signal?: NodeJS.Signals): Promise<number | null>;
  of(kind: Kind): Service[];
  call(method: string, p: string, headers?: Record<string, string>, body?: string): ReturnType<typeof request>;
  /** schedules one trigger to `${target}/${path}` at `at`, returning its id */
  schedule(path: string, at: Date): Promise<string>;
  close(): Promise<void>;
}

/** A rig for the whole file: started before its tests, closed after them; the getter answers it. */
export function useRig(opts: RigOptions = {}): () => Rig {
  let rig: Rig | undefined;
  beforeAll(async () => {
    rig = await startRig(opts);
  }, 60_000);
  afterAll(async () => {
    await rig?.close();
  });
  return () => {
    if (!rig) throw new Error("the rig did not start");
    return rig;
  };
}

export async function startRig(opts: RigOptions = {}): Promise<Rig> {
  const [pgServer, redis, target] = await Promise.all([startPostgres(), startRedis(opts.redisPersist ?? false), startTarget()]);
  await applyMigrations(pgServer.url());
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    DATABASE_URL: opts.databaseUrl ? await opts.databaseUrl(pgServer) : pgServer.url(),
    REDIS_URL: redis.url,
    TTR_REDIS_PREFIX: "ttr",
    LOG_LEVEL: "info",
    DB_POOL_SIZE: "5",
    HOST: "127.0.0.1",
    ...opts.env,
  };
  const services: Service[] = [];
  const start = async (kind: Kind, extraEnv: Record<string, string> = {}, ready = true) => {
    const port = await freePort();
    const service = await launchService(kind, `services/${kind}/dist/main.js`, { ...env, PORT: String(port), METRICS_PORT: String(port), ...extraEnv }, port, ready);
    services.push(service);
    return service;
  };
  const api = await start("api");
  for (let i = 0; i < (opts.schedulers ?? 1); i++) await start("scheduler");
  for (let i = 0; i < (opts.executors ?? 1); i++) await start("executor");
  const db = createDb(pgServer.url(), { max: 4, applicationName: "ttr-fault-test" });
  const { projectId, apiKey } = await createProject(db, "faults", opts.quota ?? 1_000_000);
  const call = (method: string, p: string, headers: Record<string, string> = {}, body?: string) =>
    request(`http://127.0.0.1:${api.port}`, method, p, headers, body);
  return {
    pg: pgServer,
    redis,
    target,
    db,
    api,
    services,
    projectId,
    apiKey,
    start,
    kill: killService,
    of: (kind) => services.filter((s) => s.name === kind && s.child.exitCode === null && s.child.signalCode === null),
    call,
    async schedule(p, at) {
      const res = await call("POST", "/schedule", { "ttr-api-key": apiKey, "ttr-url": `${target.base}/${p}`, "ttr-scheduled-at": at.toISOString() });
      if (res.status !== 200) throw new Error(`/schedule answered ${res.status}: ${res.text}`);
      return res.json<{ triggerId: string }>().triggerId;
    },
    async close() {
      for (const s of services) {
        if (s.child.signalCode === null && s.child.exitCode === null) s.child.kill("SIGCONT");
      }
      await Promise.all(services.map((s) => killService(s, "SIGKILL")));
      await db.$disconnect().catch(() => {});
      await Promise.all([pgServer.close(), redis.close(), target.close()]);
    },
  };
}

/** The next whole second at least `ms` from now. */
export function secondAfter(ms: number): Date {
  return new Date(Math.ceil((Date.now() + ms) / 1000) * 1000);
}

/** GET `path` on a service's port; null when it does not answer. */
export function probe(service: Service, p: string) {
  return request(`http://127.0.0.1:${service.port}`, "GET", p).catch(() => null);
}

/** A counter or gauge of a service's /metrics (summed over labels), or null. */
export async function metric(service: Service, name: string): Promise<number | null> {
  const res = await probe(service, "/metrics");
  if (!res) return null;
  let total: number | null = null;
  for (const line of res.text.split("\n")) {
    const m = /^([a-z_]+)(\{[^}]*\})? ([0-9.e+-]+)$/.exec(line);
    if (m && m[1] === name) total = (total ?? 0) + Number(m[3]);
  }
  return total;
}

/** Every service's /readyz answers 503 within a second, naming `store` as down. */
export async function readyzDown(rig: Rig, store: "postgres" | "redis", fault: string): Promise<void> {
  for (const s of rig.of("api").concat(rig.of("scheduler"), rig.of("executor"))) {
    const asked = Date.now();
    const res = await probe(s, "/readyz");
    const took = Date.now() - asked;
    expect(took, `${s.name} /readyz answered in ${took} ms`).toBeLessThan(1000);
    expect(res?.status).toBe(503);
    expect(res?.json()).toEqual({ status: "unavailable", down: [store] });
    figure(fault, `${s.name} /readyz answered 503 in`, took / 1000, "s");
  }
}

export const isLeader = async (s: Service) => (await metric(s, "ttr_scheduler_leader")) === 1;

/** Polls `check` every 50 ms until it holds; returns when (ms since epoch). Throws after `timeoutMs`. */
export async function until(check: () => Promise<boolean> | boolean, timeoutMs: number, what: string): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return Date.now();
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await sleep(50);
  }
}

/**
 * Waits until every path of `due` (path → due time) has been received, then
 * a little longer, and checks each was received exactly once and not before
 * its second. Returns the arrival time of each, in `due`'s order.
 */
export async function deliveredOnce(rig: Pick<Rig, "target" | "services">, due: Map<string, Date>, timeoutMs: number): Promise<number[]> {
  const { target } = rig;
  const paths = [...due.keys()].map((p) => `/${p}`);
  try {
    await until(() => paths.every((p) => target.hits(p).length > 0), timeoutMs, `all ${paths.length} triggers delivered`);
  } catch (err) {
    const missing = paths.filter((p) => target.hits(p).length === 0);
    const tails = rig.services.map((s) => `--- ${s.name} (pid ${s.child.pid}):\n${s.output.join("").split("\n").slice(-15).join("\n")}`);
    throw new Error(`${(err as Error).message}: ${missing.length} missing (${missing.slice(0, 5).join(", ")}…)\n${tails.join("\n")}`);
  }
  await sleep(1500);
  const arrivals: number[] = [];
  for (const [p, at] of due) {
    const hits = target.hits(`/${p}`);
    expect(hits.length, `${p} delivered ${hits.length} times`).toBe(1);
    const arrived = hits[0]!.at;
    expect(arrived, `${p} delivered before its second`).toBeGreaterThanOrEqual(at.getTime());
    arrivals.push(arrived);
  }
  return arrivals;
}

/**
 * A backlog for the queue: 40 triggers due at each of three consecutive
 * seconds, their target answering after 20 ms (with one executor sending one
 * at a time, they wait in the queue for about three seconds).
 */
export async function backlog(rig: Rig, prefix: string): Promise<Map<string, Date>> {
  const first = secondAfter(2000);
  const due = new Map<string, Date>();
  for (let i = 0; i < 120; i++) {
    const p = `${prefix}/${i}`;
    due.set(p, new Date(first.getTime() + Math.floor(i / 40) * 1000));
    rig.target.on(`/${p}`, (_req, res) => setTimeout(() => res.writeHead(200).end("ok"), 20));
  }
  await Promise.all([...due].map(([p, at]) => rig.schedule(p, at)));
  return due;
}

/** Requests the target has received under `prefix/`. */
export const sentSoFar = (rig: Rig, prefix: string) => rig.target.received.filter((r) => r.url.startsWith(`/${prefix}/`)).length;

/**
 * Due times, in the order the target received them, never go back, except
 * for at most `copies` requests: jobs an executor took just as Redis went
 * down, whose answer the outage lost, are sent by a copy the scheduler adds
 * a few seconds after Redis answers (RELIABILITY.md, lost queue work), so
 * they may go out after later ones. All the others keep their order: the
 * longest run of arrivals in due order leaves out at most `copies`.
 */
export function oldestFirst(due: Map<string, Date>, arrivals: number[], copies = 0): void {
  const dues = [...due.values()].map((d) => d.getTime());
  const order = arrivals.map((at, i) => ({ at, due: dues[i]! })).sort((a, b) => a.at - b.at);
  // longest non-decreasing subsequence of the due times, in arrival order
  const tails: number[] = [];
  for (const { due: d } of order) {
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (tails[mid]! <= d) lo = mid + 1;
      else hi = mid;
    }
    tails[lo] = d;
  }
  const outOfOrder = order.length - tails.length;
  expect(outOfOrder, `${outOfOrder} sent out of due order, ${copies} of them copies of jobs taken as Redis went down`).toBeLessThanOrEqual(copies);
}

/** How many jobs the scheduler copied since `since` (ms) because their executor took them just as Redis went down (its log). */
export function copiesAfterOutage(rig: Pick<Rig, "services">, since: number): number {
  let copies = 0;
  for (const s of rig.services.filter((x) => x.name === "scheduler")) {
    for (const line of jsonLines(s)) {
      if (Date.parse(String(line.timestamp)) < since) continue;
      if (line.message === "jobs not started since before the Redis outage, sent again") copies += Number(line.attempts);
    }
  }
  return copies;
}

/** Every line a service printed is JSON; returns them parsed. */
export function jsonLines(service: Service): Array<Record<string, unknown>> {
  return service.output
    .join("")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((line) => {
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        throw new Error(`${service.name} printed a line that is not JSON: ${line}`);
      }
    });
}

/**
 * Records a measured figure of a fault run (`.ttr/fault-figures.jsonl`),
 * which RELIABILITY.md reports; also printed.
 */
export function figure(fault: string, name: string, value: number, unit: string): void {
  const dir = path.join(root, ".ttr");
  mkdirSync(dir, { recursive: true });
  const line = JSON.stringify({ at: new Date().toISOString(), fault, name, value: Math.round(value * 1000) / 1000, unit });
  appendFileSync(path.join(dir, "fault-figures.jsonl"), `${line}\n`);
  console.log(`fault figure: ${fault}: ${name} = ${value} ${unit}`);
}

export { waitReady };
