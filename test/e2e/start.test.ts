// `npm start` (docs/configuration.md): it prints a working API key and a curl command
// that schedules a request, and Ctrl-C stops everything it started.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, expect, it } from "vitest";
import { freePort } from "@ttr/platform";
import { freshDatabase, redisPrefix, redisUrl } from "../support/db.js";
import { request } from "../support/http.js";
import { unwatchApi, watchApi } from "../support/openapi-conformance.js";
import { eventually } from "../support/rows.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const dataDir = mkdtempSync(path.join(os.tmpdir(), "ttr-start-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** Runs scripts/start.mjs with `env` over this process's, until it exits: its code and everything it printed. */
async function startExits(env: Record<string, string>): Promise<{ code: unknown; out: string }> {
  const child = spawn(process.execPath, [path.join(root, "scripts", "start.mjs")], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout.on("data", (c) => (out += c.toString()));
  child.stderr.on("data", (c) => (out += c.toString()));
  const code = await new Promise((r) => (child.exitCode !== null ? r(child.exitCode) : child.once("exit", r)));
  return { code, out };
}

it("prints a working API key and a curl command that schedules; Ctrl-C stops everything", async () => {
  const database = await freshDatabase();
  const port = await freePort();
  const metricsPort = await freePort();
  const executorPort = await freePort();
  // an env file from an earlier run, readable by all: rewritten for the owner alone
  writeFileSync(path.join(dataDir, "env.json"), "{}", { mode: 0o644 });
  const child = spawn(process.execPath, [path.join(root, "scripts", "start.mjs")], {
    env: {
      ...process.env,
      DATABASE_URL: database.url,
      REDIS_URL: redisUrl(),
      TTR_REDIS_PREFIX: redisPrefix(),
      TTR_DATA_DIR: dataDir,
      PORT: String(port),
      METRICS_PORT: String(metricsPort),
      TTR_EXECUTOR_METRICS_PORT: String(executorPort),
      LOG_LEVEL: "warn",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout.on("data", (c) => (out += c.toString()));
  child.stderr.on("data", (c) => (out += c.toString()));
  try {
    const deadline = Date.now() + 60_000;
    while (!out.includes("Admin CLI") && Date.now() < deadline && child.exitCode === null) await new Promise((r) => setTimeout(r, 100));
    expect(out, out).toContain(`http://localhost:${port}`);
    // it says that local and private targets are reachable here, unlike in the image
    expect(out).toContain("Targets on this machine and private networks are reachable");
    const key = /API key[^:]*:\s+(ttr_[A-Za-z0-9_-]{32,})/.exec(out)?.[1];
    expect(key, out).toBeDefined();
    expect(out).toMatch(/Dashboard:.*demo@ttr\.local \/ \S+/);
    const envFile = path.join(dataDir, "env.json");
    expect(statSync(envFile).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(envFile, "utf8"))).toEqual({ DATABASE_URL: database.url, REDIS_URL: redisUrl(), embeddedPostgres: false });

    // Its answers are checked against /openapi.json like every test api's.
    watchApi(`http://127.0.0.1:${port}`);
    // Run the printed curl command as printed, against the printed address.
    const curl = out.slice(out.indexOf("curl -X POST")).split("\n\n")[0]!.replace(/\\\n\s*/g, " ");
    expect(curl).toContain(`-H 'ttr-api-key: ${key}'`);
    const headers: Record<string, string> = {};
    for (const m of curl.matchAll(/-H '([^:]+): ([^']*)'/g)) headers[m[1]!] = m[2]!;
    const body = /-d '([^']*)'/.exec(curl)?.[1];
    const url = /curl -X POST (\S+)/.exec(curl)![1]!;
    const res = await request(url.replace("localhost", "127.0.0.1"), "POST", new URL(url).pathname, headers, body);
    expect(res.status, res.text).toBe(200);
    expect(res.json()).toMatchObject({ kind: "job", operation: "schedule" });
    // The scheduler and executor were started with the api; they may still be starting.
    for (const p of [metricsPort, executorPort]) {
      const status = await eventually(async () => {
        const r = await request(`http://127.0.0.1:${p}`, "GET", "/readyz").catch(() => null);
        return r?.status === 200 ? 200 : undefined;
      }, 20_000, `readiness on port ${p}`);
      expect(status, out).toBe(200);
    }
  } finally {
    unwatchApi(`http://127.0.0.1:${port}`);
    child.kill("SIGINT");
    const code = await new Promise((r) => (child.exitCode !== null ? r(child.exitCode) : child.once("exit", r)));
    expect(code, out).toBe(0);
    await database.drop();
  }
  // Everything it started is gone.
  const api = await request(`http://127.0.0.1:${port}`, "GET", "/healthz").catch(() => null);
  expect(api).toBeNull();
});

it("a DATABASE_URL nothing answers at: one line saying so, exit 1, no stack trace", async () => {
  const port = await freePort();
  const closed = await freePort();
  const { code, out } = await startExits({ DATABASE_URL: `postgresql://postgres:pw-not-shown@127.0.0.1:${closed}/ttr`, REDIS_URL: redisUrl(), TTR_DATA_DIR: dataDir, PORT: String(port) });
  expect(code, out).toBe(1);
  expect(out).toContain(`ttr: PostgreSQL at 127.0.0.1:${closed}/ttr cannot be used: `);
  expect(out).toContain("set DATABASE_URL to a server ttr can reach");
  expect(out).not.toMatch(/\n\s+at /);
  expect(out).not.toContain("pw-not-shown");
});

it("a bad PORT, METRICS_PORT or TTR_DEFAULT_MONTHLY_QUOTA: one line naming each, exit 1, before any server is looked for", async () => {
  const closed = await freePort();
  const { code, out } = await startExits({
    DATABASE_URL: `postgresql://postgres@127.0.0.1:${closed}/ttr`,
    TTR_DATA_DIR: dataDir,
    PORT: "abc",
    METRICS_PORT: "70000",
    TTR_DEFAULT_MONTHLY_QUOTA: "-1",
  });
  expect(code, out).toBe(1);
  expect(out).toBe(
    'ttr: Invalid configuration: PORT must be a port number from 1 to 65535, not "abc"; METRICS_PORT must be a port number from 1 to 65535, not "70000"; TTR_DEFAULT_MONTHLY_QUOTA must be a whole number from 0 to 2147483647, not "-1"\n',
  );
});
