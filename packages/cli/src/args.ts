// Reading the CLI's arguments and inputs: flags checked one by one, the
// database and the secret key to use, and passwords kept out of the process
// list.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { MAX_PASSWORD_LENGTH, type SecretKeys, secretKeys } from "@ttr/core";
import { MAX_MONTHLY_QUOTA } from "@ttr/db";
import { promptHidden } from "./prompt.js";

/** A mistake in how the command was called: usage on stderr, exit code 2. */
export class UsageError extends Error {}

/**
 * A file `npm start` writes: in TTR_DATA_DIR when that is set (as for
 * `npm start`), else the nearest `.ttr/<name>` from the working directory
 * up; null if none.
 */
export function startFile(name: string): { file: string; text: string } | null {
  const read = (file: string) => ({ file, text: readFileSync(file, "utf8") });
  if (process.env.TTR_DATA_DIR) {
    const file = path.join(path.resolve(process.env.TTR_DATA_DIR), name);
    return existsSync(file) ? read(file) : null;
  }
  for (let dir = process.cwd(); ; dir = path.dirname(dir)) {
    const file = path.join(dir, ".ttr", name);
    if (existsSync(file)) return read(file);
    if (path.dirname(dir) === dir) return null;
  }
}

/**
 * `npm start` records where its database is, so `npm run ttr` works beside
 * it. Neither given is a configuration error (exit 1), not a usage one.
 */
export function databaseUrl(): string {
  if (process.env.DATABASE_URL) return process.env.DATABASE_URL;
  const env = startFile("env.json");
  if (env === null) {
    const where = process.env.TTR_DATA_DIR ? `${process.env.TTR_DATA_DIR}/env.json` : ".ttr/env.json";
    throw new Error(`DATABASE_URL is not set, and there is no ${where} from \`npm start\`: set DATABASE_URL to the database to manage`);
  }
  let url: unknown;
  try {
    url = (JSON.parse(env.text) as { DATABASE_URL?: unknown } | null)?.DATABASE_URL;
  } catch (err) {
    throw new Error(`${env.file} is not valid JSON (${(err as Error).message}): run \`npm start\` again to rewrite it, or set DATABASE_URL`);
  }
  if (typeof url !== "string" || url === "") throw new Error(`${env.file} has no DATABASE_URL: run \`npm start\` again to rewrite it, or set DATABASE_URL`);
  return url;
}

/** The keys that seal signing secrets, and where the current one came from (for messages). */
export interface KeysInUse {
  keys: SecretKeys;
  source: string;
}

/**
 * TTR_SECRET_KEY (and TTR_SECRET_KEY_PREVIOUS); else, only when the database
 * is the one `npm start` recorded (DATABASE_URL unset), the key it made
 * beside it: another database's secrets sealed with that key would open for
 * no executor of theirs. Null when there is none.
 */
export function secretKeysOrNull(): KeysInUse | null {
  if (process.env.TTR_SECRET_KEY) return { keys: secretKeys(process.env.TTR_SECRET_KEY, process.env.TTR_SECRET_KEY_PREVIOUS), source: "TTR_SECRET_KEY" };
  if (process.env.DATABASE_URL) return null;
  const made = startFile("secret-key");
  const current = made?.text.trim();
  return made && current ? { keys: secretKeys(current, process.env.TTR_SECRET_KEY_PREVIOUS), source: made.file } : null;
}

export function need(value: string | undefined, flag: string): string {
  if (value === undefined || value === "") throw new UsageError(`missing --${flag}`);
  return value;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A UUID, in lower case as the database prints it. */
export function uuid(value: string | undefined, flag: string): string {
  const v = need(value, flag);
  if (!UUID.test(v)) throw new UsageError(`--${flag} must be a UUID`);
  return v.toLowerCase();
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
  const text = need(value, "quota");
  if (!/^\d+$/.test(text) || Number(text) > MAX_MONTHLY_QUOTA) throw new UsageError(`--quota must be a whole number from 0 to ${MAX_MONTHLY_QUOTA}`);
  return Number(text);
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
