// deploy/compose.yaml: read as Compose reads it (YAML merge keys, `${VAR:-default}`
// from the environment) and checked for its services, their start-up order,
// health checks and the private-network block being on unless set. Where a
// container engine with Compose is present (docker or podman), the stack is
// also built and brought up for real, and one trigger is scheduled to a
// target inside it and seen to fire; without one, that test is reported as
// skipped (its name says why) and a line says so.
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "@ttr/platform";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { loadEnv as executorEnv } from "../../services/executor/src/env.js";
import { request } from "../support/http.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const composeFile = path.join(root, "deploy", "compose.yaml");

type Service = Record<string, any>;

/** `${VAR}` and `${VAR:-default}` as Compose substitutes them from `env`. */
function interpolate(value: unknown, env: Record<string, string>): unknown {
  if (typeof value === "string") return value.replace(/\$\{(\w+)(?::-([^}]*))?\}/g, (_m, name: string, fallback?: string) => env[name] || (fallback ?? ""));
  if (Array.isArray(value)) return value.map((v) => interpolate(v, env));
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolate(v, env)]));
  return value;
}

function services(env: Record<string, string> = {}): Record<string, Service> {
  const doc = parse(readFileSync(composeFile, "utf8"), { merge: true }) as { services: Record<string, Service> };
  return interpolate(doc.services, env) as Record<string, Service>;
}

const TTR = ["migrate", "api", "scheduler", "executor-1", "executor-2"];
const LONG_RUNNING: Array<[string, number]> = [
  ["api", 8080],
  ["scheduler", 9464],
  ["executor-1", 9464],
  ["executor-2", 9464],
];

describe("deploy/compose.yaml", () => {
  it("runs api, scheduler, two executors, a one-shot migrate, PostgreSQL and Redis", () => {
    const s = services();
    expect(Object.keys(s).sort()).toEqual(["api", "executor-1", "executor-2", "migrate", "postgres", "redis", "scheduler"]);
    expect(TTR.map((name) => s[name]!.command)).toEqual([["migrate"], ["api"], ["scheduler"], ["executor"], ["executor"]]);
    expect(s.migrate!.restart).toBe("no");
    expect(s.redis!.command.join(" ")).toContain("--maxmemory-policy noeviction");
    expect(s.postgres!.command).toEqual(["postgres", "-c", "wal_compression=lz4"]);
  });

  it("builds every ttr service from the project's Dockerfile, with the repository as context, into one image", () => {
    const s = services();
    for (const name of TTR) {
      const build = s[name]!.build;
      expect(path.resolve(path.dirname(composeFile), build.context), name).toBe(root);
      expect(build.dockerfile, name).toBe("deploy/docker/Dockerfile");
    }
    expect(existsSync(path.join(root, "deploy", "docker", "Dockerfile"))).toBe(true);
    expect(new Set(TTR.map((name) => s[name]!.image))).toEqual(new Set(["ttr:0.1.0"]));
  });

  it("blocks private networks unless TTR_BLOCK_PRIVATE_NETWORKS says otherwise, and passes TTR_ALLOW_NETWORKS", () => {
    const unset = services();
    for (const name of TTR) {
      expect(unset[name]!.environment.TTR_BLOCK_PRIVATE_NETWORKS, name).toBe("true");
      expect(unset[name]!.environment.TTR_ALLOW_NETWORKS, name).toBe("");
    }
    const set = services({ TTR_BLOCK_PRIVATE_NETWORKS: "false", TTR_ALLOW_NETWORKS: "10.30.0.0/16" });
    expect(set["executor-1"]!.environment).toMatchObject({ TTR_BLOCK_PRIVATE_NETWORKS: "false", TTR_ALLOW_NETWORKS: "10.30.0.0/16" });
  });

  it("connects every ttr service to the postgres and redis services", () => {
    const s = services();
    for (const name of TTR) {
      expect(s[name]!.environment.DATABASE_URL, name).toBe("postgresql://ttr:ttr@postgres:5432/ttr");
      expect(s[name]!.environment.REDIS_URL, name).toBe("redis://redis:6379/0");
    }
    expect(s.postgres!.environment).toEqual({ POSTGRES_USER: "ttr", POSTGRES_PASSWORD: "ttr", POSTGRES_DB: "ttr" });
  });

  it("migrates once PostgreSQL is healthy, and starts the services only after the migration succeeded", () => {
    const s = services();
    expect(s.migrate!.depends_on).toEqual({ postgres: { condition: "service_healthy" } });
    for (const [name] of LONG_RUNNING) {
      expect(s[name]!.depends_on, name).toEqual({
        postgres: { condition: "service_healthy" },
        redis: { condition: "service_healthy" },
        migrate: { condition: "service_completed_successfully" },
      });
    }
    expect(s.postgres!.healthcheck.test).toEqual(["CMD", "pg_isready", "-U", "ttr", "-d", "ttr"]);
    expect(s.redis!.healthcheck.test).toEqual(["CMD", "redis-cli", "ping"]);
  });

  it("checks each service's health on its /readyz", () => {
    const s = services();
    for (const [name, port] of LONG_RUNNING) {
      const test = s[name]!.healthcheck.test as string[];
      expect(test.slice(0, 3), name).toEqual(["CMD", "node", "-e"]);
      expect(test[3], name).toContain(`fetch('http://127.0.0.1:${port}/readyz')`);
      expect(s[name]!.healthcheck.retries, name).toBeGreaterThan(0);
    }
    expect(s.api!.ports).toEqual(["8080:8080"]);
    expect(services({ TTR_API_PORT: "18080" }).api!.ports).toEqual(["18080:8080"]);
  });
});

/** A Compose duration ("360s", "6m", "1m30s") in seconds. */
function seconds(duration: string): number {
  const parts = [...duration.matchAll(/(\d+)(h|m|s)/g)];
  expect(parts.map((p) => p[0]).join(""), duration).toBe(duration);
  return parts.reduce((sum, [, n, unit]) => sum + Number(n) * { h: 3600, m: 60, s: 1 }[unit as "h" | "m" | "s"], 0);
}

describe("deploy/compose.yaml: stopping and the secret key", () => {
  it("gives executors longer than EXECUTOR_SHUTDOWN_GRACE_SECONDS before SIGKILL, the api and scheduler the chart's 30 s", () => {
    const s = services();
    // the executors run with the service's default grace; Compose's own stop grace is 10 s
    const grace = executorEnv({ DATABASE_URL: "postgresql://u@h/d", REDIS_URL: "redis://h:6379", ...s["executor-1"]!.environment }).EXECUTOR_SHUTDOWN_GRACE_SECONDS;
    expect(grace).toBe(330);
    for (const name of ["executor-1", "executor-2"]) expect(seconds(s[name]!.stop_grace_period), name).toBeGreaterThan(grace + 10);
    for (const name of ["api", "scheduler"]) expect(seconds(s[name]!.stop_grace_period), name).toBe(30);
  });

  it("passes TTR_SECRET_KEY and TTR_SECRET_KEY_PREVIOUS to the executors and migrate, not to the api or scheduler", () => {
    const [key, previous] = ["k".repeat(43), "p".repeat(43)];
    const s = services({ TTR_SECRET_KEY: key, TTR_SECRET_KEY_PREVIOUS: previous });
    for (const name of ["executor-1", "executor-2", "migrate"]) {
      expect(s[name]!.environment, name).toMatchObject({ TTR_SECRET_KEY: key, TTR_SECRET_KEY_PREVIOUS: previous });
      // with the rest of the shared settings
      expect(s[name]!.environment.DATABASE_URL, name).toBe("postgresql://ttr:ttr@postgres:5432/ttr");
    }
    for (const name of ["api", "scheduler"]) expect(Object.keys(s[name]!.environment).filter((k) => k.startsWith("TTR_SECRET")), name).toEqual([]);
    // unset: empty, which the executor reads as no key
    expect(services()["executor-1"]!.environment).toMatchObject({ TTR_SECRET_KEY: "", TTR_SECRET_KEY_PREVIOUS: "" });
  });
});

/** docker or podman, when one answers with a working Compose; null otherwise. */
function containerEngine(): string | null {
  for (const engine of ["docker", "podman"]) {
    const compose = spawnSync(engine, ["compose", "version"], { encoding: "utf8" });
    const info = spawnSync(engine, ["info"], { encoding: "utf8" });
    if (compose.status === 0 && info.status === 0) return engine;
  }
  return null;
}

const engine = containerEngine();
if (!engine) console.log("test/deploy/compose.test.ts: no container engine (docker or podman with compose) on this machine; the live compose test is skipped");

// A target inside the stack's network, run from the ttr image (it has node),
// on a fixed subnet that TTR_ALLOW_NETWORKS lets through the block.
const SUBNET = "10.213.77.0/24";
const OVERRIDE = `
services:
  target:
    image: \${TTR_IMAGE}
    command: ["node", "-e", "require('node:http').createServer((q, s) => { console.log('hit', q.method, q.url); s.end('ok'); }).listen(8000)"]
networks:
  default:
    ipam:
      config:
        - subnet: ${SUBNET}
`;

describe("deploy/compose.yaml with a container engine", () => {
  it.skipIf(engine === null)(
    `builds the image, brings the stack up and fires a trigger at a target (skipped: ${engine ?? "no docker or podman with compose on this machine"})`,
    async () => {
      const project = `ttr-test-${randomBytes(4).toString("hex")}`;
      const dir = mkdtempSync(path.join(tmpdir(), "ttr-compose-"));
      const override = path.join(dir, "target.yaml");
      writeFileSync(override, OVERRIDE);
      const port = await freePort();
      const env = { ...process.env, TTR_IMAGE: `ttr-compose-test:${project}`, TTR_API_PORT: String(port), TTR_ALLOW_NETWORKS: SUBNET, LOG_LEVEL: "warn" };
      const compose = (...args: string[]) => {
        const res = spawnSync(engine!, ["compose", "-p", project, "-f", composeFile, "-f", override, ...args], { cwd: root, env, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
        if (res.status !== 0) throw new Error(`${engine} compose ${args.join(" ")} failed (${res.status}):\n${res.stdout}\n${res.stderr}`);
        return res.stdout;
      };
      try {
        compose("up", "-d", "--build", "--wait", "--wait-timeout", "300");
        const base = `http://127.0.0.1:${port}`;
        expect((await request(base, "GET", "/readyz")).status).toBe(200);
        const { apiKey } = JSON.parse(compose("exec", "-T", "api", "ttr", "project", "create", "--name", "compose", "--json")) as { apiKey: string };
        const scheduled = await request(base, "POST", "/schedule", { "ttr-api-key": apiKey, "ttr-url": "http://target:8000/fired", "ttr-scheduled-at": "now" });
        expect(scheduled.status, scheduled.text).toBe(200);
        const { triggerId } = scheduled.json() as { triggerId: string };
        let status: number | null = null;
        for (let i = 0; i < 60 && status === null; i++) {
          await new Promise((r) => setTimeout(r, 1000));
          const seen = await request(base, "GET", `/triggers/${triggerId}`, { "ttr-api-key": apiKey });
          status = (seen.json() as { executions: Array<{ responseStatus: number | null }> }).executions[0]?.responseStatus ?? null;
        }
        expect(status).toBe(200);
        expect(compose("logs", "target")).toContain("hit POST /fired");
      } finally {
        spawnSync(engine!, ["compose", "-p", project, "-f", composeFile, "-f", override, "down", "-v", "--rmi", "local"], { cwd: root, env, stdio: "ignore" });
        spawnSync(engine!, ["image", "rm", "-f", env.TTR_IMAGE], { stdio: "ignore" });
        rmSync(dir, { recursive: true, force: true });
      }
    },
    1_200_000,
  );
});
