// Redis servers of a test's own (never the shared one): TLS with a throwaway
// CA, a password, Sentinels. Started from the redis-server on PATH, on free
// ports, and stopped by the test.
import { type ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { canConnect, freePort } from "../src/index.js";

export interface Certs {
  dir: string;
  ca: string;
  cert: string;
  key: string;
}

/** A CA and a server certificate for 127.0.0.1 and localhost, made with openssl. */
export function makeCerts(): Certs {
  const dir = mkdtempSync(path.join(tmpdir(), "ttr-redis-tls-"));
  const at = (f: string) => path.join(dir, f);
  const ssl = (...args: string[]) => execFileSync("openssl", args, { cwd: dir, stdio: "pipe" });
  ssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=ttr test CA", "-keyout", "ca.key", "-out", "ca.crt");
  ssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1", "-keyout", "server.key", "-out", "server.csr");
  writeFileSync(at("san.ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
  ssl("x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-days", "2", "-extfile", "san.ext", "-out", "server.crt");
  return { dir, ca: at("ca.crt"), cert: at("server.crt"), key: at("server.key") };
}

/** Whether this redis-server was built with TLS and openssl is at hand. */
export function tlsAvailable(): { ok: boolean; why: string } {
  if (spawnSync("sh", ["-c", "command -v openssl"]).status !== 0) return { ok: false, why: "no openssl on PATH" };
  // A TLS build checks its TLS settings at start and, given none, says what
  // is missing; a build without TLS never gets there.
  const probe = spawnSync("redis-server", ["--port", "0", "--tls-port", "1", "--tls-auth-clients", "yes"], { encoding: "utf8", timeout: 5000 });
  if (probe.error) return { ok: false, why: "no redis-server on PATH" };
  if (!/tls-ca-cert-file|Failed to configure TLS/.test(`${probe.stdout}${probe.stderr}`)) return { ok: false, why: "redis-server built without TLS" };
  return { ok: true, why: "" };
}

export interface Server {
  port: number;
  stop(): Promise<void>;
}

/** Runs `redis-server` with a config file of these lines, and waits for `port` to accept. */
export async function startRedis(lines: string[], port: number, sentinel = false): Promise<Server> {
  const dir = mkdtempSync(path.join(tmpdir(), "ttr-redis-"));
  const conf = path.join(dir, "redis.conf");
  writeFileSync(conf, [`dir ${dir}`, "bind 127.0.0.1", 'save ""', "appendonly no", ...lines, ""].join("\n"));
  const child: ChildProcess = spawn("redis-server", [conf, ...(sentinel ? ["--sentinel"] : [])], { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout?.on("data", (d) => (output += d));
  child.stderr?.on("data", (d) => (output += d));
  for (let i = 0; i < 100 && !(await canConnect("127.0.0.1", port, 100)); i++) {
    if (child.exitCode !== null) throw new Error(`redis-server exited: ${output}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    port,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/** A TLS-only Redis (no plain port) with a password. */
export async function startTlsRedis(certs: Certs, password: string): Promise<Server> {
  const port = await freePort();
  return startRedis(
    ["port 0", `tls-port ${port}`, `tls-cert-file ${certs.cert}`, `tls-key-file ${certs.key}`, `tls-ca-cert-file ${certs.ca}`, "tls-auth-clients no", `requirepass ${password}`],
    port,
  );
}
