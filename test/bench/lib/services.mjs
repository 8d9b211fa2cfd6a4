// The services as processes, the way they run in production: one Node.js
// process each, configured by environment variables only. Output goes to a
// log file per process under .ttr/bench/logs (removed when the process is
// stopped cleanly, kept when it failed, or always with TTR_BENCH_KEEP_LOGS=1,
// to read what a service said during a slow second).
import { NODE_FLAGS } from "../../../scripts/node-flags.mjs";
import { spawn } from "node:child_process";
import { closeSync, mkdirSync, openSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { freePort } from "@ttr/platform";
import { benchDir, root } from "./infra.mjs";
import { cpuMs, memoryMb } from "./procstat.mjs";

const logDir = path.join(benchDir, "logs");

/**
 * @typedef {object} Proc
 * @property {string} name
 * @property {number} pid
 * @property {number} port
 * @property {import("node:child_process").ChildProcess} child
 * @property {string} logFile
 * @property {() => number} cpu  CPU ms so far
 * @property {() => {rss: number, hwm: number}} memory
 * @property {(signal?: NodeJS.Signals) => Promise<void>} stop
 * @property {() => string} tail  last lines of its output
 */

/** Options every spawn takes: `profileDir` runs the process under --cpu-prof. */
export let nodeFlags = { profileDir: null };
export function setProfileDir(dir) {
  nodeFlags = { profileDir: dir };
}

async function ready(proc, url, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (proc.child.exitCode !== null) throw new Error(`${proc.name} exited early:\n${proc.tail()}`);
    const ok = await fetch(url).then((r) => r.ok, () => false);
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${proc.name} not ready after ${timeoutMs} ms:\n${proc.tail()}`);
}

/**
 * Spawns `node <script>` and waits for GET <readyPath> on its port.
 * @returns {Promise<Proc>}
 */
export async function spawnNode(name, script, env, { port, readyPath = "/readyz", profileName = name, flags = [] } = {}) {
  mkdirSync(logDir, { recursive: true });
  const logFile = path.join(logDir, `${name}-${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}.log`);
  const fd = openSync(logFile, "w");
  const args = [...flags];
  if (nodeFlags.profileDir) {
    mkdirSync(nodeFlags.profileDir, { recursive: true });
    args.push("--cpu-prof", `--cpu-prof-dir=${nodeFlags.profileDir}`, `--cpu-prof-name=${profileName}-${Date.now()}.cpuprofile`);
  }
  const child = spawn(process.execPath, [...args, path.join(root, script)], {
    cwd: root,
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["ignore", fd, fd],
  });
  closeSync(fd);
  const proc = {
    name,
    pid: child.pid,
    port,
    child,
    logFile,
    cpu: () => cpuMs(child.pid),
    memory: () => memoryMb(child.pid),
    tail: () => {
      try {
        return readFileSync(logFile, "utf8").split("\n").slice(-40).join("\n");
      } catch {
        return "";
      }
    },
    async stop(signal = "SIGTERM") {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        child.kill(signal);
        const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
        await exited;
        clearTimeout(timer);
      }
      if (process.env.TTR_BENCH_KEEP_LOGS !== "1") rmSync(logFile, { force: true });
    },
  };
  try {
    await ready(proc, `http://127.0.0.1:${port}${readyPath}`);
  } catch (err) {
    child.kill("SIGKILL");
    throw err;
  }
  return proc;
}

/**
 * ttr's three services against one database and Redis prefix.
 * @param {{url: string, redisPrefix: string}} database
 * @param {string} redisUrl
 * @param {{executors?: number, api?: boolean, scheduler?: boolean, env?: Record<string,string>, schedulerEnv?: Record<string,string>, executorEnv?: Record<string,string>}} opts
 */
export async function startTtr(database, redisUrl, opts = {}) {
  const common = { DATABASE_URL: database.url, REDIS_URL: redisUrl, TTR_REDIS_PREFIX: database.redisPrefix, ...opts.env };
  const procs = [];
  const stopAll = () => Promise.all(procs.map((p) => p.stop()));
  /** Starts one service; all of them start at once. */
  const launch = async (name, kind, env, profileName = name) => {
    const port = await freePort();
    const portEnv = kind === "api" ? { PORT: String(port), HOST: "127.0.0.1" } : { METRICS_PORT: String(port) };
    const p = await spawnNode(name, `services/${kind}/dist/main.js`, { ...common, ...portEnv, ...env }, { port, profileName, flags: NODE_FLAGS[kind] });
    procs.push(p);
    return p;
  };
  try {
    const started = await Promise.allSettled([
      opts.api !== false ? launch("api", "api", opts.apiEnv) : null,
      opts.scheduler !== false ? launch("scheduler", "scheduler", opts.schedulerEnv) : null,
      ...Array.from({ length: opts.executors ?? 1 }, (_, i) => launch(`executor${i + 1}`, "executor", opts.executorEnv, "executor")),
    ]);
    const failed = started.find((s) => s.status === "rejected");
    if (failed) throw failed.reason;
    const [api, scheduler, ...executors] = started.map((s) => s.value);
    if (scheduler) {
      // Ready means reachable; wait until it holds the leadership lock too.
      const deadline = Date.now() + 15_000;
      while (Date.now() < deadline) {
        const text = await fetch(`http://127.0.0.1:${scheduler.port}/metrics`).then((r) => r.text(), () => "");
        if (/^ttr_scheduler_leader\S* 1$/m.test(text)) break;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    return { api, scheduler, executors, procs, apiBase: api ? `http://127.0.0.1:${api.port}` : null, stop: stopAll };
  } catch (err) {
    await stopAll();
    throw err;
  }
}

/** CPU groups of a ttr system for cpuMeter: one per service kind. */
export function ttrGroups(sys) {
  const groups = {};
  if (sys.api) groups.api = [sys.api.pid];
  if (sys.scheduler) groups.scheduler = [sys.scheduler.pid];
  groups.executor = sys.executors.map((e) => e.pid);
  return groups;
}

/**
 * The scheduler's slow-tick and slow-sweep lines (docs/operations.md, slow
 * ticks) logged between `from` and `to` (ms), as logged: each names the
 * step that took the time.
 */
export function slowTicks(sys, from, to) {
  let text = "";
  try {
    text = readFileSync(sys.scheduler.logFile, "utf8");
  } catch {
    return [];
  }
  return text
    .split("\n")
    .filter((line) => line.includes('"slow scheduler '))
    .map((line) => JSON.parse(line))
    .filter((e) => {
      const at = Date.parse(e.timestamp);
      return at >= from && at <= to;
    })
    .map(({ level: _level, service: _service, ...e }) => e);
}
