// `ttr project signing-secret` and the re-sealing of signing secrets by
// `ttr migrate` after TTR_SECRET_KEY changed (docs/delivery-extras.md).
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, createProject, type Db } from "@ttr/db";
import { freshDatabase, type TestDatabase } from "../../../test/support/db.js";

const run = promisify(execFile);
const main = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "dist", "main.js");
// away from the repository, so no .ttr/secret-key of `npm start` is found
const cwd = mkdtempSync(path.join(tmpdir(), "ttr-cli-"));
const KEY_A = randomBytes(32).toString("base64");
const KEY_B = randomBytes(32).toString("hex");

let database: TestDatabase;
let db: Db;
let projectId: string;

async function ttr(env: Record<string, string>, ...args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [main, ...args], { cwd, env: { PATH: process.env.PATH ?? "", DATABASE_URL: database.url, ...env } });
    return { stdout, stderr, code: 0 };
  } catch (err) {
    const e = err as { stdout: string; stderr: string; code: number };
    return { stdout: e.stdout, stderr: e.stderr, code: e.code };
  }
}

async function secret(env: Record<string, string>, ...flags: string[]): Promise<{ secret: string; previous: string | null }> {
  const out = await ttr(env, "project", "signing-secret", "--project", projectId, ...flags, "--json");
  expect(out.code, out.stderr).toBe(0);
  return JSON.parse(out.stdout);
}

const stored = () => db.$queryRawUnsafe<Array<{ secret: string; previous: string | null }>>("SELECT secret, previous_secret AS previous FROM signing_secrets WHERE project_id = $1::uuid", projectId);

beforeAll(async () => {
  database = await freshDatabase();
  db = createDb(database.url, { max: 2 });
  projectId = (await createProject(db, "signing", 100)).projectId;
});
afterAll(async () => {
  await db.$disconnect();
  await database.drop();
});

describe("ttr project signing-secret", () => {
  it("needs TTR_SECRET_KEY, a project, and an existing project", { timeout: 60_000 }, async () => {
    const noKey = await ttr({}, "project", "signing-secret", "--project", projectId, "--json");
    expect(noKey.code).toBe(1);
    expect(noKey.stderr).toMatch(/TTR_SECRET_KEY is not set/);
    expect(noKey.stdout).toBe("");
    const usage = await ttr({ TTR_SECRET_KEY: KEY_A }, "project", "signing-secret", "--json");
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/missing --project/);
    const unknown = await ttr({ TTR_SECRET_KEY: KEY_A }, "project", "signing-secret", "--project", "00000000-0000-4000-8000-000000000000", "--json");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/project not found/);
    const badKey = await ttr({ TTR_SECRET_KEY: "too-short" }, "project", "signing-secret", "--project", projectId, "--json");
    expect(badKey.code).toBe(1);
    expect(badKey.stderr).toMatch(/32 bytes/);
    // the key `npm start` made belongs to its own database: with DATABASE_URL
    // naming another one (shared, say), its executors would never open a secret sealed with it
    const clone = mkdtempSync(path.join(tmpdir(), "ttr-clone-"));
    writeFileSync(path.join(clone, "secret-key"), `${KEY_A}\n`);
    const foreignKey = await ttr({ TTR_DATA_DIR: clone }, "project", "signing-secret", "--project", projectId, "--json");
    expect(foreignKey.code).toBe(1);
    expect(foreignKey.stderr).toMatch(/^ttr: TTR_SECRET_KEY is not set.*used only with its own database, when DATABASE_URL is unset/);
    expect(await stored()).toEqual([]);
  });

  it("makes a secret once, rotates it keeping the previous one, and stores both sealed", { timeout: 60_000 }, async () => {
    const first = await secret({ TTR_SECRET_KEY: KEY_A });
    expect(first).toEqual({ secret: expect.stringMatching(/^whsec_/), previous: null });
    expect(await secret({ TTR_SECRET_KEY: KEY_A })).toEqual(first);
    const rotated = await secret({ TTR_SECRET_KEY: KEY_A }, "--rotate");
    expect(rotated.previous).toBe(first.secret);
    expect(rotated.secret).not.toBe(first.secret);
    const [row] = await stored();
    expect(row!.secret).toMatch(/^v1\./);
    expect(row!.previous).toMatch(/^v1\./);
    expect(JSON.stringify(row)).not.toContain(rotated.secret.slice(6, 20));
    expect(JSON.stringify(row)).not.toContain(first.secret.slice(6, 20));
    // another key cannot open them
    const wrong = await ttr({ TTR_SECRET_KEY: KEY_B }, "project", "signing-secret", "--project", projectId, "--json");
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/neither TTR_SECRET_KEY nor TTR_SECRET_KEY_PREVIOUS/);
  });

  it("ttr migrate re-seals under a new key given the old one as previous; then the old key can go", { timeout: 60_000 }, async () => {
    const before = await secret({ TTR_SECRET_KEY: KEY_A });
    const sealedBefore = (await stored())[0]!;
    const migrate = await ttr({ TTR_SECRET_KEY: KEY_B, TTR_SECRET_KEY_PREVIOUS: KEY_A }, "migrate");
    expect(migrate.code, migrate.stderr).toBe(0);
    expect(migrate.stdout).toMatch(/re-sealed the signing secrets of 1 project/);
    const sealedAfter = (await stored())[0]!;
    expect(sealedAfter.secret).not.toBe(sealedBefore.secret);
    expect(sealedAfter.previous).not.toBe(sealedBefore.previous);
    expect(await secret({ TTR_SECRET_KEY: KEY_B })).toEqual(before);
    // nothing left to re-seal: a second run changes nothing
    expect((await ttr({ TTR_SECRET_KEY: KEY_B }, "migrate", "--json")).stdout).toBe('{"ok":true}\n');
    expect((await stored())[0]).toEqual(sealedAfter);
  });

  it("a key that did not seal the stored secrets: migrate says the migrations were applied but nothing was re-sealed; no new secret is sealed with it", { timeout: 60_000 }, async () => {
    const sealed = await stored();
    const migrate = await ttr({ TTR_SECRET_KEY: KEY_A }, "migrate", "--json");
    expect([migrate.code, migrate.stdout]).toEqual([1, ""]);
    expect(migrate.stderr).toMatch(/^ttr: the migrations were applied \(none were due\), but the signing secrets were not re-sealed: sealed with key \w+, which is neither/);
    const other = (await createProject(db, "other key", 100)).projectId;
    const refused = await ttr({ TTR_SECRET_KEY: KEY_A }, "project", "signing-secret", "--project", other, "--json");
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^ttr: this database's signing secrets are sealed with key \w{16}, but the key in use \(TTR_SECRET_KEY\) is \w{16}: /);
    expect(await stored()).toEqual(sealed);
    expect(await db.$queryRawUnsafe("SELECT 1 FROM signing_secrets WHERE project_id = $1::uuid", other)).toEqual([]);
    // during a rotation the old key may have sealed them (the secret made here goes again, for the test below)
    const rotating = await ttr({ TTR_SECRET_KEY: KEY_A, TTR_SECRET_KEY_PREVIOUS: KEY_B }, "project", "signing-secret", "--project", other, "--json");
    expect(rotating.code, rotating.stderr).toBe(0);
    await db.$executeRawUnsafe("DELETE FROM signing_secrets WHERE project_id = $1::uuid", other);
  });
});

// last: its project gets a signing secret, which the counts above do not expect
describe("beside `npm start` with TTR_DATA_DIR", () => {
  it("takes the database and the secret key from the files `npm start` wrote there", { timeout: 30_000 }, async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "ttr-data-"));
    writeFileSync(path.join(dataDir, "env.json"), JSON.stringify({ DATABASE_URL: database.url }));
    // the key that sealed the secrets above, as `npm start` would have used
    writeFileSync(path.join(dataDir, "secret-key"), `${KEY_B}\n`);
    const own = (await createProject(db, "data-dir", 100)).projectId;
    const out = await ttr({ DATABASE_URL: "", TTR_DATA_DIR: dataDir }, "project", "signing-secret", "--project", own, "--json");
    expect(out.code, out.stderr).toBe(0);
    expect(JSON.parse(out.stdout).secret).toMatch(/^whsec_/);
    const missing = await ttr({ DATABASE_URL: "", TTR_DATA_DIR: path.join(dataDir, "none") }, "trigger", "list", "--project", own);
    // a configuration to fix, not a mistake in the call: exit 1
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`no ${path.join(dataDir, "none")}/env.json`);
    const corrupt = mkdtempSync(path.join(tmpdir(), "ttr-data-"));
    writeFileSync(path.join(corrupt, "env.json"), "{ half written");
    const unreadable = await ttr({ DATABASE_URL: "", TTR_DATA_DIR: corrupt }, "trigger", "list", "--project", own);
    expect([unreadable.code, unreadable.stderr.startsWith(`ttr: ${path.join(corrupt, "env.json")} is not valid JSON`)]).toEqual([1, true]);
  });
});
