// The admin CLI's set-up commands, run as a process against a fresh database.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyPassword } from "@ttr/core";
import { createDb, createSession, type Db, defaultMonthlyQuota } from "@ttr/db";
import { freshDatabase, type TestDatabase } from "../../../test/support/db.js";
import { cliRunner, UUID } from "./cli-support.js";

let database: TestDatabase;
let db: Db;
const { ttr, ttrWithEnv, ttrWithInput, json } = cliRunner(() => database.url);

beforeAll(async () => {
  database = await freshDatabase();
  db = createDb(database.url, { max: 2 });
});
afterAll(async () => {
  await db.$disconnect();
  await database.drop();
});

// Each call starts a Node process that loads the database client: about a
// second of CPU, much more on a busy machine, and a test makes several.
describe("ttr admin CLI", { timeout: 90_000 }, () => {
  it("migrate prints {ok:true} and is idempotent", async () => {
    expect(await json("migrate")).toEqual({ ok: true });
    expect(await json("migrate")).toEqual({ ok: true });
  });

  it("creates a project whose key is shown once and stored only as a hash", async () => {
    const out = await json("project", "create", "--name", "acme", "--quota", "42");
    expect(Object.keys(out).sort()).toEqual(["apiKey", "projectId"]);
    expect(out.projectId).toMatch(UUID);
    expect(out.apiKey).toMatch(/^ttr_[A-Za-z0-9_-]{32,}$/);
    const rows = await db.$queryRawUnsafe<Array<{ key_hash: string; monthly_quota: number }>>(
      `SELECT k.key_hash, p.monthly_quota FROM api_keys k JOIN projects p ON p.id = k.project_id WHERE p.id = $1::uuid`,
      out.projectId,
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.monthly_quota).toBe(42);
    expect(rows[0]!.key_hash).not.toContain(String(out.apiKey).slice(4));
    // nothing of the key itself, not even its first characters
    const all = JSON.stringify(await db.$queryRawUnsafe(`SELECT * FROM api_keys`));
    expect(all).not.toContain(String(out.apiKey).slice(4, 10));
  });

  it("project create without --quota uses TTR_DEFAULT_MONTHLY_QUOTA's default of 100000", async () => {
    const out = await json("project", "create", "--name", "defaults");
    const [row] = await db.$queryRawUnsafe<Array<{ monthly_quota: number }>>(`SELECT monthly_quota FROM projects WHERE id = $1::uuid`, out.projectId);
    expect(row!.monthly_quota).toBe(100000);
  });

  it("a quota that is not a whole number from 0 to 2147483647 is refused, from --quota (usage, exit 2) or TTR_DEFAULT_MONTHLY_QUOTA (exit 1), and no project is made", async () => {
    const projects = async () => Number((await db.$queryRawUnsafe<Array<{ n: bigint }>>("SELECT count(*) AS n FROM projects"))[0]!.n);
    const before = await projects();
    const over = await ttr("project", "create", "--name", "huge", "--quota", "3000000000", "--json");
    expect(over.code).toBe(2);
    expect(over.stdout).toBe("");
    expect(over.stderr).toContain("--quota must be a whole number from 0 to 2147483647");
    const env = await ttrWithEnv({ TTR_DEFAULT_MONTHLY_QUOTA: "1.5" }, "project", "create", "--name", "fraction", "--json");
    expect(env.code).toBe(1);
    expect(env.stdout).toBe("");
    expect(env.stderr).toContain('TTR_DEFAULT_MONTHLY_QUOTA must be a whole number from 0 to 2147483647, not "1.5"');
    expect(await projects()).toBe(before);
    // the same reading, without a process each
    expect(defaultMonthlyQuota({})).toBe(100000);
    expect(defaultMonthlyQuota({ TTR_DEFAULT_MONTHLY_QUOTA: "" })).toBe(100000);
    expect(defaultMonthlyQuota({ TTR_DEFAULT_MONTHLY_QUOTA: " 250 " })).toBe(250);
    expect(defaultMonthlyQuota({ TTR_DEFAULT_MONTHLY_QUOTA: "0" })).toBe(0);
    expect(defaultMonthlyQuota({ TTR_DEFAULT_MONTHLY_QUOTA: "2147483647" })).toBe(2147483647);
    for (const bad of ["abc", "-1", "1e3", "2147483648", "0x10"]) expect(() => defaultMonthlyQuota({ TTR_DEFAULT_MONTHLY_QUOTA: bad }), bad).toThrow(/must be a whole number/);
  });

  it("sets a quota, creates and revokes API keys, creates users", async () => {
    const { projectId } = await json("project", "create", "--name", "ops");
    // the ID as the database prints it, whatever case it was given in
    expect(await json("project", "set-quota", "--project", String(projectId).toUpperCase(), "--quota", "7")).toEqual({ projectId, monthlyQuota: 7 });
    const negative = await ttr("project", "set-quota", "--project", String(projectId), "--quota", "-1", "--json");
    expect(negative.code).toBe(2);
    expect(negative.stderr).toMatch(/^ttr: --quota must be a whole number from 0 to 2147483647\n/);
    const key = await json("apikey", "create", "--project", String(projectId));
    expect(key.apiKeyId).toMatch(UUID);
    expect(key.apiKey).toMatch(/^ttr_[A-Za-z0-9_-]{32,}$/);
    expect(await json("apikey", "revoke", "--id", String(key.apiKeyId))).toEqual({ revoked: true });
    const [revoked] = await db.$queryRawUnsafe<Array<{ revoked: boolean }>>(`SELECT revoked_at IS NOT NULL AS revoked FROM api_keys WHERE id = $1::uuid`, key.apiKeyId);
    expect(revoked!.revoked).toBe(true);
    const user = await json("user", "create", "--project", String(projectId), "--email", "Ops@Example.com", "--password", "s3cret-pass");
    expect(user.userId).toMatch(UUID);
    const [stored] = await db.$queryRawUnsafe<Array<{ email: string; password_hash: string }>>(`SELECT email, password_hash FROM users WHERE id = $1::uuid`, user.userId);
    expect(stored!.email).toBe("ops@example.com");
    expect(stored!.password_hash).toMatch(/^scrypt\$/);
    expect(stored!.password_hash).not.toContain("s3cret-pass");
  });

  it("user create and user set-password read the password from stdin; set-password ends the user's sessions", async () => {
    const { projectId } = await json("project", "create", "--name", "passwords");
    const created = await ttrWithInput("first-pass\n", "user", "create", "--project", String(projectId), "--email", "pw@example.com", "--json");
    expect(created.code, created.stderr).toBe(0);
    const { userId } = JSON.parse(created.stdout) as { userId: string };
    const hashOf = async () =>
      (await db.$queryRawUnsafe<Array<{ h: string }>>(`SELECT password_hash AS h FROM users WHERE id = $1::uuid`, userId))[0]!.h;
    expect(await verifyPassword("first-pass", await hashOf())).toBe(true);
    for (const token of ["a", "b"]) await createSession(db, userId, token.repeat(64), { idleSeconds: 3600, absoluteSeconds: 86400, touchEverySeconds: 60 });

    const set = await ttrWithInput("second-pass\n", "user", "set-password", "--email", "PW@example.com", "--json");
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout)).toEqual({ userId, sessionsEnded: 2 });
    expect(await verifyPassword("second-pass", await hashOf())).toBe(true);
    expect(await verifyPassword("first-pass", await hashOf())).toBe(false);
    const [{ n } = { n: -1 }] = await db.$queryRawUnsafe<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM sessions WHERE user_id = $1::uuid`, userId);
    expect(n).toBe(0);

    const empty = await ttrWithInput("", "user", "set-password", "--email", "pw@example.com", "--json");
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain("no password");
    // sign-in compares at most 1,024 characters: a longer password could never be used
    for (const input of [["--password", "p".repeat(1025)], []]) {
      const long = await ttrWithInput(`${"q".repeat(1025)}\n`, "user", "set-password", "--email", "pw@example.com", ...input, "--json");
      expect(long.code).toBe(2);
      expect(long.stderr).toContain("the password must be at most 1024 characters");
    }
    expect(await verifyPassword("second-pass", await hashOf())).toBe(true);
    const longest = await ttrWithInput(`${"q".repeat(1024)}\n`, "user", "set-password", "--email", "pw@example.com", "--json");
    expect(longest.code, longest.stderr).toBe(0);
    expect(await verifyPassword("q".repeat(1024), await hashOf())).toBe(true);
    const nobody = await ttrWithInput("x\n", "user", "set-password", "--email", "nobody@example.com", "--json");
    expect(nobody.code).toBe(1);
    expect(nobody.stderr).toContain("no user with email nobody@example.com");
  });

  it("user create refuses an email that is not name@host, as a usage error, and makes no user", async () => {
    const { projectId } = await json("project", "create", "--name", "emails");
    for (const email of ["bad", "a@", "@b", "a b@c", "a@b@c"]) {
      const out = await ttr("user", "create", "--project", String(projectId), "--email", email, "--password", "long-enough", "--json");
      expect(out.code, email).toBe(2);
      expect(out.stderr).toContain("--email must be an email address (name@host)");
    }
    const [{ n } = { n: -1 }] = await db.$queryRawUnsafe<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM users WHERE project_id = $1::uuid`, projectId);
    expect(n).toBe(0);
  });

  it("fails clearly on bad usage and unknown ids", async () => {
    const usage = await ttr("project", "create", "--json");
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("missing --name");
    const unknown = await ttr("project", "set-quota", "--project", "00000000-0000-4000-8000-000000000000", "--quota", "1", "--json");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("not found");
    const again = await ttr("apikey", "revoke", "--id", "00000000-0000-4000-8000-000000000000", "--json");
    expect(again.code).toBe(1);
    expect(again.stderr).toBe("ttr: api key not found\n");
  });

  it("apikey list shows a project's keys but never a key; revoke takes the key itself too, and a second revoke is no error", async () => {
    const { projectId, apiKey } = await json("project", "create", "--name", "keys");
    const listed = async () => (await json<{ apiKeys: Array<Record<string, unknown>> }>("apikey", "list", "--project", String(projectId))).apiKeys;
    const [first, ...none] = await listed();
    expect(none).toEqual([]);
    expect(first).toEqual({ id: expect.stringMatching(UUID), createdAt: expect.any(String), revokedAt: null });
    // the first key, which no command printed the ID of, revoked by the key itself
    expect(await json("apikey", "revoke", "--key", String(apiKey))).toEqual({ revoked: true });
    const [revoked] = await listed();
    expect(revoked).toEqual({ ...first, revokedAt: expect.any(String) });
    const [row] = await db.$queryRawUnsafe<Array<{ revoked_at: Date; key_hash: string }>>(`SELECT revoked_at, key_hash FROM api_keys WHERE id = $1::uuid`, first!.id);
    expect(revoked!.revokedAt).toBe(row!.revoked_at.toISOString());
    expect(JSON.stringify(revoked)).not.toContain(row!.key_hash);
    // a retried revoke finds it revoked already: what it asked for
    expect(await json("apikey", "revoke", "--id", String(first!.id))).toEqual({ revoked: true });
    expect((await ttr("apikey", "revoke", "--id", String(first!.id))).stdout).toBe(`api key ${first!.id} was revoked already\n`);
    for (const args of [[], ["--id", String(first!.id), "--key", String(apiKey)], ["--key", "not-a-key"]]) {
      const usage = await ttr("apikey", "revoke", ...args, "--json");
      expect(usage.code, args.join(" ")).toBe(2);
      expect(usage.stderr).toMatch(/^ttr: (give either --id or --key|--key must be an API key)/);
    }
    const unknown = await ttr("apikey", "revoke", "--key", `ttr_${"x".repeat(43)}`, "--json");
    expect([unknown.code, unknown.stderr]).toEqual([1, "ttr: api key not found\n"]);
  });

  it("a database that cannot be reached, or is not migrated: one reason line naming the server, never its credentials, exit 1", async () => {
    const closed = "postgresql://admin:s3cr3t-pw@127.0.0.1:1/ttr";
    const z = "00000000-0000-4000-8000-000000000000";
    for (const args of [["project", "create", "--name", "x"], ["trigger", "list", "--project", z], ["migrate"]]) {
      const out = await ttrWithEnv({ DATABASE_URL: closed }, ...args, "--json");
      expect([out.code, out.stdout, out.stderr], args.join(" ")).toEqual([1, "", "ttr: database unavailable: cannot reach 127.0.0.1:1 (ECONNREFUSED)\n"]);
    }
    // the server's own maintenance database has none of ttr's tables
    const unmigrated = new URL(database.url);
    unmigrated.pathname = "/postgres";
    const out = await ttrWithEnv({ DATABASE_URL: unmigrated.href }, "apikey", "list", "--project", z, "--json");
    expect([out.code, out.stderr]).toEqual([1, "ttr: the database is not migrated: run ttr migrate\n"]);
    // the embedded database `npm start` recorded, after it stopped: that is the reason given
    const dataDir = mkdtempSync(path.join(tmpdir(), "ttr-data-"));
    try {
      const embedded = "postgresql://postgres:ttr-embedded@127.0.0.1:1/ttr";
      writeFileSync(path.join(dataDir, "env.json"), JSON.stringify({ DATABASE_URL: embedded, embeddedPostgres: true }));
      const stopped = await ttrWithEnv({ DATABASE_URL: "", TTR_DATA_DIR: dataDir }, "trigger", "list", "--project", z, "--json");
      expect([stopped.code, stopped.stderr]).toEqual([1, "ttr: the database of npm start is not running: start npm start first, or set DATABASE_URL\n"]);
      // a server npm start was given, not one it ran: the usual reason
      writeFileSync(path.join(dataDir, "env.json"), JSON.stringify({ DATABASE_URL: embedded, embeddedPostgres: false }));
      const given = await ttrWithEnv({ DATABASE_URL: "", TTR_DATA_DIR: dataDir }, "trigger", "list", "--project", z, "--json");
      expect([given.code, given.stderr]).toEqual([1, "ttr: database unavailable: cannot reach 127.0.0.1:1 (ECONNREFUSED)\n"]);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("prune removes history past the retention and says how much, as one JSON object", async () => {
    const { projectId } = await json("project", "create", "--name", "history");
    const old = new Date(Date.now() - 40 * 86_400_000);
    const oldDay = old.toISOString().slice(0, 10);
    await db.$queryRawUnsafe(`SELECT ttr_ensure_partitions($1::date, $1::date)`, oldDay);
    await db.$executeRawUnsafe(
      `WITH t AS (
         INSERT INTO triggers (project_id, status, url, method, headers, scheduled_at, created_at, updated_at, part_day)
         SELECT $1::uuid, 'completed', 'http://127.0.0.1:9/', 'GET', '[]', $2, $2, $2, $3::date FROM generate_series(1, 6)
         RETURNING id, part_day)
       INSERT INTO executions (trigger_id, project_id, attempt_number, triggered_by, status, planned_at, completed_at, part_day)
       SELECT id, $1::uuid, 1, 'scheduler', 'complete', $2, $2, part_day FROM t`,
      projectId, old, oldDay,
    );
    expect(await json("prune", "--older-than-days", "60")).toEqual({ executions: 0, triggers: 0 });
    expect(await json("prune", "--older-than-days", "30")).toEqual({ executions: 6, triggers: 6 });
    expect(await json("prune")).toEqual({ executions: 0, triggers: 0 });
    const bad = await ttr("prune", "--older-than-days", "-3", "--json");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--older-than-days");
    // past 100 years the cutoff would lie before any time PostgreSQL holds: a usage error, not a database error
    for (const days of ["36501", "3000000", "99999999999"]) {
      const huge = await ttr("prune", "--older-than-days", days, "--json");
      expect(huge.code, days).toBe(2);
      expect(huge.stderr).toContain("--older-than-days must be a whole number from 0 to 36500");
    }
    expect(await json("prune", "--older-than-days", "36500")).toEqual({ executions: 0, triggers: 0 });
    // the variable, when the flag is not given: a bad value is named as such
    // and read as the scheduler reads it: set but empty is refused, a whole number in any spelling is taken
    for (const value of ["x", "-5", "3000000", "", "7.5", "0x10", "0b11"]) {
      const env = await ttrWithEnv({ TTR_RETENTION_DAYS: value }, "prune", "--json");
      expect(env.code, value).toBe(1);
      expect(env.stderr).toContain("TTR_RETENTION_DAYS must be a whole number from 0 to 36500");
      expect(env.stdout).toBe("");
    }
    for (const value of ["0", "36500.0", "1e1"]) {
      const fromEnv = await ttrWithEnv({ TTR_RETENTION_DAYS: value }, "prune", "--json");
      expect(fromEnv.code, `${value}: ${fromEnv.stderr}`).toBe(0);
      expect(JSON.parse(fromEnv.stdout)).toEqual({ executions: 0, triggers: 0 });
    }
  });
});
