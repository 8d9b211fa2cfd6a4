// Running the built CLI as a process in tests, against a given database.
import { execFile, spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { createDb, type Db } from "@ttr/db";
import { afterAll, beforeAll, expect } from "vitest";
import { freshDatabase, type TestDatabase } from "../../../test/support/db.js";

const run = promisify(execFile);
export const main = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "dist", "main.js");
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export interface Ran {
  stdout: string;
  stderr: string;
  code: number | null;
}

/** `ttr`, `ttrWithInput` and `json` bound to the database whose URL `databaseUrl` gives when called. */
export function cliRunner(databaseUrl: () => string) {
  const env = (extra: Record<string, string> = {}) => ({ ...process.env, DATABASE_URL: databaseUrl(), ...extra });

  function ttr(...args: string[]): Promise<Ran> {
    return ttrWithEnv({}, ...args);
  }

  /** `ttr` with these environment variables set too. */
  async function ttrWithEnv(extra: Record<string, string>, ...args: string[]): Promise<Ran> {
    try {
      const { stdout, stderr } = await run(process.execPath, [main, ...args], { env: env(extra) });
      return { stdout, stderr, code: 0 };
    } catch (err) {
      const e = err as { stdout: string; stderr: string; code: number };
      return { stdout: e.stdout, stderr: e.stderr, code: e.code };
    }
  }

  /** Runs the CLI with `input` written to its stdin (then closed). */
  function ttrWithInput(input: string, ...args: string[]): Promise<Ran> {
    return new Promise((resolve) => {
      const child = spawn(process.execPath, [main, ...args], { env: env() });
      let [stdout, stderr] = ["", ""];
      child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
      child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
      child.on("close", (code) => resolve({ stdout, stderr, code }));
      child.stdin.end(input);
    });
  }

  /** Runs a command with --json: exit 0 and exactly one JSON object on stdout. */
  async function json<T = Record<string, unknown>>(...args: string[]): Promise<T> {
    const out = await ttr(...args, "--json");
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout.trim().split("\n")).toHaveLength(1);
    return JSON.parse(out.stdout) as T;
  }

  return { ttr, ttrWithEnv, ttrWithInput, json };
}

/**
 * For a test file: a fresh database with one project made by `ttr project
 * create`, a pool on it, and the CLI bound to it; dropped after the file.
 * Read `db` and `projectId` inside tests (they are set in beforeAll).
 */
export function cliProject(name: string) {
  let database: TestDatabase | undefined;
  const state = { db: undefined as unknown as Db, projectId: "" };
  const runner = cliRunner(() => database!.url);
  beforeAll(async () => {
    database = await freshDatabase();
    state.db = createDb(database.url, { max: 2 });
    ({ projectId: state.projectId } = await runner.json<{ projectId: string }>("project", "create", "--name", name));
  });
  afterAll(async () => {
    await state.db?.$disconnect();
    await database?.drop();
  });
  return {
    ...runner,
    get db(): Db {
      return state.db;
    },
    get projectId(): string {
      return state.projectId;
    },
    get databaseUrl(): string {
      return database!.url;
    },
  };
}
