// Reading the CLI's arguments and inputs: flags checked one by one, the
// database to use, and passwords kept out of the process list.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { MAX_PASSWORD_LENGTH, type SecretKeys, secretKeys } from "@ttr/core";
import { MAX_MONTHLY_QUOTA } from "@ttr/db";

/** A mistake in how the command was called: usage on stderr, exit code 2. */
export class UsageError extends Error {}

/**
 * A file `npm start` writes: in TTR_DATA_DIR when that is set (as for
 * `npm start`), else the nearest `.ttr/<name>` from the working directory
 * up; null if none.
 */
function startFile(name: string): string | null {
  if (process.env.TTR_DATA_DIR) {
    const file = path.join(path.resolve(process.env.TTR_DATA_DIR), name);
    return existsSync(file) ? readFileSync(file, "utf8") : null;
  }
  for (let dir = process.cwd(); ; dir = path.dirname(dir)) {
    const file = path.join(dir, ".ttr", name);
    if (existsSync(file)) return readFileSync(file, "utf8");
    if (path.dirname(dir) === dir) return null;
  }
}

/** `npm start` records where its database is, so `npm run ttr` works beside it. */
export function databaseUrl(): string {
  if (process.env.DATABASE_URL) return process.env.DATABASE_URL;
  const env = startFile("env.json");
  if (env !== null) return (JSON.parse(env) as { DATABASE_URL: string }).DATABASE_URL;
  const where = process.env.TTR_DATA_DIR ? `${process.env.TTR_DATA_DIR}/env.json` : ".ttr/env.json";
  throw new UsageError(`DATABASE_URL is not set (and no ${where} from \`npm start\` was found)`);
}

/** TTR_SECRET_KEY (and TTR_SECRET_KEY_PREVIOUS), else the key `npm start` made; null when there is none. */
export function secretKeysOrNull(): SecretKeys | null {
  const current = process.env.TTR_SECRET_KEY || startFile("secret-key")?.trim();
  return current ? secretKeys(current, process.env.TTR_SECRET_KEY_PREVIOUS) : null;
}

export function need(value: string | undefined, flag: string): string {
  if (value === undefined || value === "") throw new UsageError(`missing --${flag}`);
  return value;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function uuid(value: string | undefined, flag: string): string {
  const v = need(value, flag);
  if (!UUID.test(v)) throw new UsageError(`--${flag} must be a UUID`);
  return v;
}

/** A whole number ≥ 0 (`fallback` when the flag is absent and one is given). */
export function count(value: string | undefined, flag: string, fallback?: number): number {
  if (value === undefined && fallback !== undefined) return fallback;
  const text = need(value, flag);
  const n = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(n)) throw new UsageError(`--${flag} must be a whole number ≥ 0`);
  return n;
}

/** A monthly quota: a whole number from 0 to MAX_MONTHLY_QUOTA. */
export function quota(value: string | undefined, fallback?: () => number): number {
  if (value === undefined && fallback !== undefined) return fallback();
  const n = count(value, "quota");
  if (n > MAX_MONTHLY_QUOTA) throw new UsageError(`--quota must be a whole number from 0 to ${MAX_MONTHLY_QUOTA}`);
  return n;
}

/** A page size from 1 to `max`, like the api's `limit`. */
export function limit(value: string | undefined, fallback: number, max: number): number {
  const n = count(value, "limit", fallback);
  if (n < 1 || n > max) throw new UsageError(`--limit must be from 1 to ${max}`);
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

/** --password, else one line from stdin (unechoed at a terminal); at most MAX_PASSWORD_LENGTH characters, which sign-in takes. */
export async function password(value: string | undefined): Promise<string> {
  const text =
    value !== undefined
      ? need(value, "password")
      : process.stdin.isTTY
        ? await promptHidden("Password: ")
        : (await readAll(process.stdin)).replace(/\r?\n$/, "");
  if (text === "") throw new UsageError("no password: give --password, or write it to stdin");
  if (text.length > MAX_PASSWORD_LENGTH) throw new UsageError(`the password must be at most ${MAX_PASSWORD_LENGTH} characters (sign-in takes no longer one)`);
  return text;
}

/** A sign-in email: one `@` with something on each side, no white space, at most 254 characters. */
export function emailAddress(value: string | undefined): string {
  const text = need(value, "email");
  if (text.length > 254 || !/^[^\s@]+@[^\s@]+$/.test(text)) throw new UsageError("--email must be an email address (name@host)");
  return text;
}
