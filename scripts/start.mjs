// `npm start` (docs/configuration.md): PostgreSQL and Redis (found or started),
// migrations, the demo project, then api, scheduler and one executor as child
// processes. Ctrl-C stops everything this script started.
import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { NODE_FLAGS } from "./node-flags.mjs";
import { dataDir, root, say } from "./lib.mjs";

const { resolveInfra, databaseUrl, canConnect, freePort } = await import("../packages/platform/dist/index.js");
const db = await import("../packages/db/dist/index.js");

const env = process.env;

/**
 * The settings this script reads itself, checked before anything starts
 * (on every run, not only when one is first used): one line naming every
 * bad one, as the services say it.
 */
function readSettings() {
  const problems = [];
  const port = (name, fallback) => {
    // An empty variable counts as unset, as it does for resolveInfra.
    const raw = env[name]?.trim() || String(fallback);
    if (/^\d+$/.test(raw) && Number(raw) >= 1 && Number(raw) <= 65535) return Number(raw);
    problems.push(`${name} must be a port number from 1 to 65535, not "${env[name]}"`);
    return fallback;
  };
  const settings = { port: port("PORT", 8080), metricsPort: port("METRICS_PORT", 9464) };
  if (env.TTR_EXECUTOR_METRICS_PORT) settings.executorMetricsPort = port("TTR_EXECUTOR_METRICS_PORT", 0);
  try {
    // the demo project's quota, used on the first run only
    settings.monthlyQuota = db.defaultMonthlyQuota(env);
  } catch (err) {
    problems.push(String(err.message).replace(/^Invalid configuration: /, ""));
  }
  if (problems.length > 0) {
    say(`Invalid configuration: ${problems.join("; ")}`);
    process.exit(1);
  }
  return settings;
}
const settings = readSettings();

// What this script started, stopped in reverse on Ctrl-C, SIGTERM or SIGHUP
// (a closed terminal), from here on: the services first, then the embedded
// PostgreSQL and Redis, which run in process groups of their own, out of
// reach of the terminal's signals, so that the services can still record
// what they were doing. Before resolveInfra has returned, exiting is enough:
// an embedded server it started is signalled when this process exits.
const children = [];
let infra;
let stopping = false;
async function stop(code) {
  if (stopping) return;
  stopping = true;
  say("stopping");
  await Promise.all(
    children.map((c) => (c.exitCode !== null || c.signalCode !== null ? null : new Promise((r) => { c.once("exit", r); c.kill("SIGTERM"); }))),
  );
  await infra?.stop();
  process.exit(code);
}
process.on("SIGINT", () => void stop(0));
process.on("SIGTERM", () => void stop(0));
process.on("SIGHUP", () => void stop(0));

const port = settings.port;
if (await canConnect("127.0.0.1", port)) {
  say(`port ${port} is already in use: stop what runs there or set PORT`);
  process.exit(1);
}

try {
  infra = await resolveInfra({ dataDir, log: say });
} catch (err) {
  say(String(err?.message ?? err));
  process.exit(1);
}
// An empty variable counts as unset, as it does for resolveInfra.
const DATABASE_URL = env.DATABASE_URL || databaseUrl(infra.postgresServerUrl, "ttr");
const REDIS_URL = infra.redisUrl;
say(`PostgreSQL: ${infra.origins.postgres}; Redis: ${infra.origins.redis}`);

/** One line on why PostgreSQL at DATABASE_URL cannot be used (its address only: no password is shown). */
function databaseProblem(err) {
  let where = "DATABASE_URL";
  try {
    const url = new URL(DATABASE_URL);
    where = `PostgreSQL at ${url.host}${url.pathname}`;
  } catch {}
  const message = String(err?.message ?? err).split("\n")[0];
  if (/password|SASL|SCRAM|authentication/i.test(message)) {
    return `${where} asks for a password ttr was not given (${message}): set DATABASE_URL to postgresql://<user>:<password>@<host>:<port>/ttr`;
  }
  return `${where} cannot be used: ${message}. Start it, or set DATABASE_URL to a server ttr can reach`;
}

// The demo project is created once; every start issues it a fresh API key and
// dashboard password, because only hashes of earlier ones are stored.
const email = "demo@ttr.local";
const password = randomBytes(9).toString("base64url");
let apiKey;
try {
  await db.createDatabaseIfMissing(DATABASE_URL);
  const { applied } = await db.applyMigrations(DATABASE_URL);
  if (applied.length) say(`applied migrations: ${applied.join(", ")}`);
  const client = db.createDb(DATABASE_URL, { max: 2, applicationName: "ttr-start" });
  try {
    let project = await client.project.findFirst({ where: { name: "demo" }, orderBy: { createdAt: "asc" } });
    if (!project) {
      const created = await db.createProject(client, "demo", settings.monthlyQuota);
      project = { id: created.projectId };
      apiKey = created.apiKey;
    } else {
      apiKey = (await db.createApiKey(client, project.id)).apiKey;
    }
    await db.upsertUser(client, project.id, email, password);
  } finally {
    await client.$disconnect();
  }
} catch (err) {
  // a stop meanwhile ends the run by itself
  if (stopping) await new Promise(() => {});
  say(databaseProblem(err));
  await infra.stop();
  process.exit(1);
}

// Where `npm run ttr` finds the database. It may hold a password: only the
// owner reads it. `embeddedPostgres` tells the CLI that this database runs
// only while npm start does.
mkdirSync(dataDir, { recursive: true });
const envFile = path.join(dataDir, "env.json");
const recorded = { DATABASE_URL, REDIS_URL, embeddedPostgres: infra.embedded.postgres };
writeFileSync(envFile, `${JSON.stringify(recorded, null, 2)}\n`, { mode: 0o600 });
chmodSync(envFile, 0o600);

// The key that seals signing secrets (docs/delivery-extras.md): made on the
// first run and kept under .ttr/, where `npm run ttr` finds it too.
const keyFile = path.join(dataDir, "secret-key");
if (!env.TTR_SECRET_KEY && !existsSync(keyFile)) {
  writeFileSync(keyFile, `${randomBytes(32).toString("base64")}\n`, { mode: 0o600 });
  say(`made a key for sealing secrets: ${path.relative(root, keyFile)} (keep it; signing secrets cannot be read without it)`);
}
const TTR_SECRET_KEY = env.TTR_SECRET_KEY || readFileSync(keyFile, "utf8").trim();

const serviceEnv = { ...env, DATABASE_URL, REDIS_URL, PORT: String(port), TTR_SECRET_KEY };
// METRICS_PORT for the scheduler, the next free port for the executor (docs/operations.md).
const metricsPorts = [];
for (let p = settings.metricsPort; metricsPorts.length < 2 && p < 65536; p++) {
  if (!(await canConnect("127.0.0.1", p))) metricsPorts.push(p);
}
while (metricsPorts.length < 2) metricsPorts.push(await freePort());
// A caller that must know the executor's port exactly (the start test) sets it.
if (settings.executorMetricsPort) metricsPorts[1] = settings.executorMetricsPort;
// Stopped meanwhile: no services are started (stop() has taken their list).
if (stopping) await new Promise(() => {});
const services = [
  ["api", {}],
  ["scheduler", { METRICS_PORT: String(metricsPorts[0]) }],
  ["executor", { METRICS_PORT: String(metricsPorts[1]) }],
];
for (const [name, extra] of services) {
  const main = path.join(root, "services", name, "dist", "main.js");
  if (!existsSync(main)) continue;
  const child = spawn(process.execPath, [...NODE_FLAGS[name], main], { env: { ...serviceEnv, ...extra }, stdio: ["ignore", "inherit", "inherit"] });
  child.on("exit", (code, signal) => {
    if (!stopping) {
      say(`${name} exited (${signal ?? code}); stopping`);
      void stop(1);
    }
  });
  children.push(child);
}

// Ready once the api's /readyz says so; after 30 s, what it names as down is
// the problem (a REDIS_URL nothing answers at, or one that wants a password).
const base = `http://localhost:${port}`;
let down = null;
for (let i = 0; i < 300 && !stopping; i++) {
  const answer = await fetch(`${base}/readyz`).then(async (r) => (r.ok ? null : ((await r.json().catch(() => ({}))).down ?? ["the api"])), () => ["the api"]);
  down = answer;
  if (down === null) break;
  await new Promise((r) => setTimeout(r, 100));
}
// A service that exited meanwhile is stopping everything: no banner.
if (stopping) await new Promise(() => {});
if (down !== null) {
  const hint = down.includes("redis")
    ? `: Redis (${infra.origins.redis}) does not answer ttr, or wants a password; set REDIS_URL (redis://:<password>@<host>:<port>)`
    : down.includes("postgres")
      ? ": check DATABASE_URL"
      : "";
  say(`not ready within 30 s; down: ${down.join(", ")}${hint}`);
  await stop(1);
}

process.stdout.write(`
  ttr is running at ${base}

  API key (demo project, shown once):  ${apiKey}
  Dashboard:                           ${base}/dashboard   ${email} / ${password}

  Schedule a request 10 seconds from now:

    curl -X POST ${base}/schedule \\
      -H 'ttr-api-key: ${apiKey}' \\
      -H 'ttr-url: https://httpbin.org/post' \\
      -H 'ttr-scheduled-at: now | add 10s' \\
      -H 'content-type: application/json' \\
      -d '{"hello":"ttr"}'

  Admin CLI: npm run ttr -- --help        Stop: Ctrl-C

  ${serviceEnv.TTR_BLOCK_PRIVATE_NETWORKS === "true" ? "Targets on private networks are refused (TTR_BLOCK_PRIVATE_NETWORKS=true)." : "Targets on this machine and private networks are reachable (TTR_BLOCK_PRIVATE_NETWORKS is off here;\n  the container image and the Helm chart switch it on)."}
\n`);
