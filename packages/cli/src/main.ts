#!/usr/bin/env node
// The admin CLI (CONTRACT §3). With --json it prints exactly one JSON object
// on stdout; errors go to stderr with exit code 1 (2 for usage errors).
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { PREVIOUS_SECRET_SIGNS_HOURS, type SecretKeys, secretKeys } from "@ttr/core";
import {
  applyMigrations,
  clientRunner,
  createApiKey,
  createDatabaseIfMissing,
  createDb,
  createProject,
  createUser,
  ensurePartitions,
  ensureSigningSecret,
  prune,
  resealSigningSecrets,
  revokeApiKey,
  rotateSigningSecret,
  setProjectQuota,
  setUserPassword,
  withPgClient,
} from "@ttr/db";

const USAGE = `usage: ttr <command> [options]

  migrate                                              apply database migrations
  project create --name <name> [--quota <n>] [--json]  create a project and its first API key
  project set-quota --project <id> --quota <n> [--json]
  project signing-secret --project <id> [--rotate] [--json]
                                                       the project's webhook signing secret (made if missing);
                                                       --rotate: a new one, the old one signs beside it for ${PREVIOUS_SECRET_SIGNS_HOURS} h
  apikey create --project <id> [--json]
  apikey revoke --id <apiKeyId> [--json]
  user create --project <id> --email <e> [--password <p>] [--json]
  user set-password --email <e> [--password <p>] [--json]
                                                       a new password; ends the user's sessions
  (without --password, the password is read from stdin, unechoed at a terminal:
   a password in the arguments can be seen in the process list and shell history)
  prune [--older-than-days <n>] [--json]               remove history now (default: TTR_RETENTION_DAYS, 30)

DATABASE_URL selects the database (default: the one \`npm start\` uses).`;

class UsageError extends Error {}

/** The nearest `.ttr/<name>` from the working directory up, as `npm start` writes them; null if none. */
function startFile(name: string): string | null {
  for (let dir = process.cwd(); ; dir = path.dirname(dir)) {
    const file = path.join(dir, ".ttr", name);
    if (existsSync(file)) return readFileSync(file, "utf8");
    if (path.dirname(dir) === dir) return null;
  }
}

/** `npm start` records where its database is, so `pnpm ttr` works beside it. */
function databaseUrl(): string {
  if (process.env.DATABASE_URL) return process.env.DATABASE_URL;
  const env = startFile("env.json");
  if (env !== null) return (JSON.parse(env) as { DATABASE_URL: string }).DATABASE_URL;
  throw new UsageError("DATABASE_URL is not set (and no .ttr/env.json from `npm start` was found)");
}

/** TTR_SECRET_KEY (and TTR_SECRET_KEY_PREVIOUS), else the key `npm start` made; null when there is none. */
function secretKeysOrNull(): SecretKeys | null {
  const current = process.env.TTR_SECRET_KEY || startFile("secret-key")?.trim();
  return current ? secretKeys(current, process.env.TTR_SECRET_KEY_PREVIOUS) : null;
}

function need(value: string | undefined, flag: string): string {
  if (value === undefined || value === "") throw new UsageError(`missing --${flag}`);
  return value;
}

function quota(value: string | undefined, fallback?: number): number {
  if (value === undefined && fallback !== undefined) return fallback;
  const n = Number(need(value, "quota"));
  if (!Number.isInteger(n) || n < 0) throw new UsageError("--quota must be a whole number ≥ 0");
  return n;
}

function wholeDays(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n)) throw new UsageError("--older-than-days must be a whole number ≥ 0");
  return n;
}

/** Reads what stdin holds until it ends. */
async function readAll(stream: NodeJS.ReadStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** Asks for a line at the terminal without echoing it. */
function promptHidden(question: string): Promise<string> {
  const stdin = process.stdin;
  process.stderr.write(question);
  stdin.setRawMode(true);
  stdin.resume();
  return new Promise((resolve) => {
    let typed = "";
    const onData = (chunk: Buffer) => {
      for (const ch of chunk.toString("utf8")) {
        if (ch === "\r" || ch === "\n") {
          stdin.setRawMode(false);
          stdin.pause();
          stdin.off("data", onData);
          process.stderr.write("\n");
          resolve(typed);
          return;
        }
        if (ch === "\u0003") process.exit(130);
        typed = ch === "\u007f" ? typed.slice(0, -1) : typed + ch;
      }
    };
    stdin.on("data", onData);
  });
}

/** --password, else one line from stdin (unechoed at a terminal). */
async function password(value: string | undefined): Promise<string> {
  if (value !== undefined) return need(value, "password");
  const text = process.stdin.isTTY ? await promptHidden("Password: ") : (await readAll(process.stdin)).replace(/\r?\n$/, "");
  if (text === "") throw new UsageError("no password: give --password, or write it to stdin");
  return text;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
function uuid(value: string | undefined, flag: string): string {
  const v = need(value, flag);
  if (!UUID.test(v)) throw new UsageError(`--${flag} must be a UUID`);
  return v;
}

async function run(argv: string[]): Promise<{ json: Record<string, unknown>; text: string }> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: "string" },
      quota: { type: "string" },
      project: { type: "string" },
      id: { type: "string" },
      email: { type: "string" },
      password: { type: "string" },
      "older-than-days": { type: "string" },
      rotate: { type: "boolean", default: false },
      json: { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  const command = positionals.join(" ");
  if (values.help || command === "") throw new UsageError("");

  const url = databaseUrl();
  if (command === "migrate") {
    await createDatabaseIfMissing(url);
    const { applied } = await applyMigrations(url);
    await withPgClient(url, (c) => ensurePartitions(clientRunner(c), new Date()), "ttr-cli");
    // After TTR_SECRET_KEY changed: secrets sealed with the previous key are sealed again with the new one.
    const keys = secretKeysOrNull();
    const db = keys && createDb(url, { max: 2, applicationName: "ttr-cli" });
    const resealed = db ? await resealSigningSecrets(db, keys).finally(() => db.$disconnect()) : 0;
    const text = [applied.length ? `applied ${applied.join(", ")}` : "database is up to date", ...(resealed ? [`re-sealed the signing secrets of ${resealed} project(s)`] : [])];
    return { json: { ok: true }, text: text.join("\n") };
  }
  if (command === "prune") {
    const days = wholeDays(values["older-than-days"] ?? process.env.TTR_RETENTION_DAYS ?? "30");
    const r = await prune(url, { olderThanDays: days, lockWaitMs: 120_000 });
    const text = days === 0 ? "retention is 0 days: everything is kept" : `removed ${r.triggers} triggers and ${r.executions} executions (${r.partitions} day partitions)`;
    return { json: { executions: r.executions, triggers: r.triggers }, text };
  }

  const db = createDb(url, { max: 2, applicationName: "ttr-cli" });
  try {
    switch (command) {
      case "project create": {
        const defaultQuota = Number(process.env.TTR_DEFAULT_MONTHLY_QUOTA ?? 100000);
        const out = await createProject(db, need(values.name, "name"), quota(values.quota, defaultQuota));
        return { json: out, text: `project ${out.projectId}\napi key ${out.apiKey} (shown once)` };
      }
      case "project set-quota": {
        const projectId = uuid(values.project, "project");
        const monthlyQuota = quota(values.quota);
        if (!(await setProjectQuota(db, projectId, monthlyQuota))) throw new Error(`project ${projectId} not found`);
        return { json: { projectId, monthlyQuota }, text: `project ${projectId} quota ${monthlyQuota}` };
      }
      case "project signing-secret": {
        const projectId = uuid(values.project, "project");
        const keys = secretKeysOrNull();
        if (!keys) throw new Error("TTR_SECRET_KEY is not set: signing secrets are stored sealed with it (docs/delivery-extras.md)");
        const out = values.rotate ? await rotateSigningSecret(db, keys, projectId) : await ensureSigningSecret(db, keys, projectId);
        const previous = out.previous === null ? "" : `\nprevious ${out.previous} (still signs)`;
        return { json: { secret: out.secret, previous: out.previous }, text: `secret ${out.secret}${previous}` };
      }
      case "apikey create": {
        const out = await createApiKey(db, uuid(values.project, "project"));
        return { json: out, text: `api key ${out.apiKeyId}: ${out.apiKey} (shown once)` };
      }
      case "apikey revoke": {
        const id = uuid(values.id, "id");
        if (!(await revokeApiKey(db, id))) throw new Error(`api key ${id} not found or already revoked`);
        return { json: { revoked: true }, text: `api key ${id} revoked` };
      }
      case "user create": {
        const out = await createUser(db, uuid(values.project, "project"), need(values.email, "email"), await password(values.password));
        return { json: out, text: `user ${out.userId}` };
      }
      case "user set-password": {
        const email = need(values.email, "email");
        const out = await setUserPassword(db, email, await password(values.password));
        if (!out) throw new Error(`no user with email ${email}`);
        return { json: out, text: `user ${out.userId}: password set, ${out.sessionsEnded} session(s) ended` };
      }
      default:
        throw new UsageError(`unknown command: ${command}`);
    }
  } finally {
    await db.$disconnect();
  }
}

const argv = process.argv.slice(2);
const asJson = argv.includes("--json");
run(argv).then(
  ({ json, text }) => {
    process.stdout.write(asJson ? `${JSON.stringify(json)}\n` : `${text}\n`);
  },
  (err: unknown) => {
    const usage = err instanceof UsageError || (err as { code?: string })?.code?.startsWith("ERR_PARSE_ARGS");
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(usage ? `${message ? `ttr: ${message}\n\n` : ""}${USAGE}\n` : `ttr: ${friendly(message)}\n`);
    process.exitCode = usage ? 2 : 1;
  },
);

function friendly(message: string): string {
  if (/Unique constraint|unique/i.test(message) && /email/i.test(message)) return "a user with this email already exists";
  if (/Foreign key|foreign key/i.test(message)) return "project not found";
  return message;
}
