// The CLI's help and exit codes, and its commands that read and act on a
// project's triggers: they answer as the api's endpoints do.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { verifyPassword } from "@ttr/core";
import { createUser } from "@ttr/db";
import { cliProject, main } from "./cli-support.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

const f = cliProject("results");
const { ttr, json } = f;

/** A one-shot written straight to the table, and optionally its one finished attempt. */
async function seed(status: string, opts: { customKey?: string; tag?: string; attempt?: { responseStatus: number; deadLetter: boolean } } = {}) {
  const [t] = await f.db.$queryRawUnsafe<Array<{ id: string }>>(
    `INSERT INTO triggers (project_id, status, custom_key, url, method, headers, tags, scheduled_at, attempts, created_at, updated_at)
     VALUES ($1::uuid, $2::trigger_status, $3, 'http://127.0.0.1:9/hook', 'POST', '[["x-a","1"]]', $4::text[], now() + interval '1 hour', $5, now(), now())
     RETURNING id::text`,
    f.projectId, status, opts.customKey ?? null, opts.tag ? [opts.tag] : [], opts.attempt ? 1 : 0,
  );
  if (opts.attempt) {
    await f.db.$executeRawUnsafe(
      `INSERT INTO executions (trigger_id, part_day, project_id, attempt_number, triggered_by, status, planned_at, started_at, completed_at,
                               response_status, response_headers, response_body, response_size, is_dead_letter)
       SELECT t.id, t.part_day, t.project_id, 1, 'scheduler', 'complete', now(), now(), now(), $2, '{}'::jsonb, '', 0, $3
       FROM triggers t WHERE t.id = $1::uuid`,
      t!.id, opts.attempt.responseStatus, opts.attempt.deadLetter,
    );
  }
  return t!.id;
}

// Each call starts a Node process that loads the database client: about a
// second of CPU, much more on a busy machine, and a test makes several.
describe("help and exit codes", { timeout: 90_000 }, () => {
  it("--help, help, a group's --help and a command's --help print usage on stdout and exit 0", async () => {
    for (const args of [["--help"], ["-h"], ["help"], ["trigger", "--help"], ["trigger", "list", "--help"], ["help", "dead-letters", "replay"]]) {
      const out = await ttr(...args);
      expect(out.code, args.join(" ")).toBe(0);
      expect(out.stdout).toMatch(/^usage: ttr /);
      expect(out.stderr).toBe("");
    }
    expect((await ttr("trigger", "list", "--help")).stdout).toContain("--project <id>");
  });

  it("the command list keeps a gap between each name and its summary, the longest name included", async () => {
    const out = await ttr("--help");
    expect(out.stdout).toMatch(/^ {2}project signing-secret {2,}\S/m);
    for (const row of out.stdout.split("\n").filter((l) => /^ {2}[a-z]/.test(l))) expect(row, row).toMatch(/^ {2}[a-z-]+(?: [a-z-]+)? {2,}\S/);
  });

  it("an unknown command, an unknown flag, a stray argument or no command: the reason, then usage on stderr, exit 2", async () => {
    for (const [args, why] of [
      [["frobnicate"], "unknown command: frobnicate"],
      [["trigger", "list", "--bogus"], "Unknown option '--bogus'"],
      [["trigger", "list", "extra"], "Unexpected argument 'extra'"],
      [[], "no command given"],
      [["--version"], "unknown flag: --version"],
      [["--json", "migrate"], "--json goes after the command"],
    ] as const) {
      const out = await ttr(...args);
      expect(out.code, args.join(" ")).toBe(2);
      expect(out.stdout).toBe("");
      expect(out.stderr.split("\n")[0], args.join(" ")).toMatch(`ttr: ${why}`);
      expect(out.stderr.startsWith("ttr: ")).toBe(true);
      expect(out.stderr).toContain("usage: ttr");
    }
  });

  it("a missing or malformed flag is a usage error before the database is asked anything, even an unreachable one", async () => {
    const closed = { DATABASE_URL: "postgresql://postgres@127.0.0.1:1/ttr" };
    const nowhere = "00000000-0000-4000-8000-00000000abcd";
    for (const [env, args] of [
      [closed, ["trigger", "show", "--project", nowhere]],
      [closed, ["trigger", "list", "--project", nowhere, "--limit", "0"]],
      [{}, ["trigger", "cancel", "--project", nowhere]],
      [{}, ["dead-letters", "list", "--project", nowhere, "--cursor", "garbage"]],
      [closed, ["dead-letters", "discard", "--project", nowhere, "--from", "yesterday"]],
    ] as const) {
      const out = await f.ttrWithEnv(env, ...args);
      expect(out.code, `${args.join(" ")}: ${out.stderr}`).toBe(2);
      expect(out.stderr).toContain("usage: ttr ");
    }
  });

  it("with no database configured at all, a mistake in the call to any command is still a usage error (exit 2), not the missing DATABASE_URL", async () => {
    // DATABASE_URL unset, and no env.json from npm start where the CLI looks for one
    const empty = mkdtempSync(path.join(tmpdir(), "ttr-nodb-"));
    try {
      const unset = { DATABASE_URL: "", TTR_DATA_DIR: empty };
      const nowhere = "00000000-0000-4000-8000-00000000abcd";
      const calls = [
        ["migrate", "--bogus"],
        ["prune", "--older-than-days", "soon"],
        ["project", "create"],
        ["project", "create", "--name", "x", "--quota", "-1"],
        ["project", "set-quota", "--project", "nope", "--quota", "1"],
        ["project", "signing-secret", "--project", "nope"],
        ["apikey", "create", "--project", "nope"],
        ["apikey", "list", "--project", "nope"],
        ["apikey", "revoke"],
        ["apikey", "revoke", "--key", "nope"],
        ["user", "create", "--project", nowhere, "--email", "not-an-email", "--password", "pw"],
        ["user", "create", "--project", nowhere, "--email", "a@b.example", "--password", ""],
        ["user", "set-password", "--email", "a@b.example", "--password", ""],
        ["user", "reset-password"],
        ["trigger", "list", "--project", nowhere, "--limit", "0"],
        ["trigger", "show", "--project", nowhere],
        ["trigger", "cancel", "--project", nowhere],
        ["dead-letters", "list", "--project", nowhere, "--cursor", "garbage"],
        ["dead-letters", "replay", "--project", nowhere, "--trigger", "nope"],
        ["dead-letters", "discard", "--project", nowhere, "--from", "yesterday"],
      ];
      const outs = await Promise.all(calls.map((args) => f.ttrWithEnv(unset, ...args)));
      calls.forEach((args, i) => {
        const out = outs[i]!;
        expect(out.code, `${args.join(" ")}: ${out.stderr}`).toBe(2);
        expect(out.stderr, args.join(" ")).toMatch(/^ttr: .*\n\nusage: ttr /);
        expect(out.stderr, args.join(" ")).not.toContain("DATABASE_URL is not set");
      });
      // and the call itself right, the missing database is the reason (exit 1)
      const right = await f.ttrWithEnv(unset, "apikey", "create", "--project", nowhere);
      expect([right.code, right.stderr]).toEqual([1, `ttr: DATABASE_URL is not set, and there is no ${empty}/env.json from \`npm start\`: set DATABASE_URL to the database to manage\n`]);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it("npm run ttr -- --help exits 0 with the usage alone on stdout (no npm banner)", () => {
    const out = spawnSync("npm", ["run", "ttr", "--", "--help"], { cwd: root, encoding: "utf8" });
    expect(out.status, out.stderr).toBe(0);
    expect(out.stdout).toMatch(/^usage: ttr /);
  });
});

describe("trigger and dead-letter commands", { timeout: 90_000 }, () => {
  it("trigger list: a page newest first with a cursor to the next, filters by status and tag", async () => {
    const ids = [await seed("registered", { tag: "cli" }), await seed("registered", { tag: "cli" }), await seed("completed", { tag: "cli" })];
    const first = await json<{ triggers: Array<{ id: string; status: string }>; nextCursor: string }>(
      "trigger", "list", "--project", f.projectId, "--tag", "cli", "--limit", "2",
    );
    expect(first.triggers.map((t) => t.id)).toEqual([ids[2], ids[1]]);
    const second = await json<{ triggers: Array<{ id: string }>; nextCursor: string | null }>(
      "trigger", "list", "--project", f.projectId, "--tag", "cli", "--limit", "2", "--cursor", first.nextCursor,
    );
    expect(second).toEqual({ triggers: [expect.objectContaining({ id: ids[0] })], nextCursor: null });
    const completed = await json<{ triggers: Array<{ id: string }> }>("trigger", "list", "--project", f.projectId, "--tag", "cli", "--status", "completed");
    expect(completed.triggers.map((t) => t.id)).toEqual([ids[2]]);
    // a malformed value is a usage error, as docs/cli.md says: the reason, then the usage
    for (const [flag, value, reason] of [["--status", "sleeping", "Invalid status: sleeping"], ["--kind", "cron", "Invalid kind: cron \\(job or generator\\)"], ["--cursor", "garbage", "Invalid cursor"]] as const) {
      const bad = await ttr("trigger", "list", "--project", f.projectId, flag, value);
      expect(bad.code, flag).toBe(2);
      expect(bad.stderr).toMatch(new RegExp(`^ttr: ${reason}\n\nusage: ttr trigger list `));
    }
  });

  it("trigger show: the trigger with its headers and executions, as the api shows it; an unknown id fails", async () => {
    const id = await seed("completed", { attempt: { responseStatus: 500, deadLetter: true } });
    const out = await json<{ trigger: Record<string, unknown>; executions: Array<Record<string, unknown>> }>("trigger", "show", "--project", f.projectId, "--id", id);
    expect(out.trigger).toMatchObject({ id, kind: "job", status: "completed", method: "POST", headers: { "x-a": "1" } });
    expect(out.executions).toEqual([expect.objectContaining({ triggerId: id, attemptNumber: 1, responseStatus: 500, isDeadLetter: true })]);
    const text = await ttr("trigger", "show", "--project", f.projectId, "--id", id);
    expect(text.stdout).toContain("x-a: 1");
    const missing = await ttr("trigger", "show", "--project", f.projectId, "--id", "00000000-0000-4000-8000-000000000000");
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe("ttr: Trigger not found\n");
    // a value that is no ID at all is a usage error, as in every command that takes an ID
    for (const args of [
      ["trigger", "show", "--project", f.projectId, "--id", "xyz"],
      ["trigger", "cancel", "--project", f.projectId, "--id", "xyz"],
      ["dead-letters", "replay", "--project", f.projectId, "--trigger", "xyz"],
    ]) {
      const malformed = await ttr(...args);
      expect(malformed.code, args.join(" ")).toBe(2);
      expect(malformed.stderr).toContain(`--${args[4]!.slice(2)} must be a UUID`);
    }
  });

  it("text output shows a tenant's control characters as escapes; --json gives them exactly; an empty list says so", async () => {
    const [t] = await f.db.$queryRawUnsafe<Array<{ id: string }>>(
      `INSERT INTO triggers (project_id, status, custom_key, title, url, method, headers, body, tags, scheduled_at, created_at, updated_at)
       VALUES ($1::uuid, 'registered', E'k\\x1b[2J', E'T\\x07', E'http://127.0.0.1:9/\\x1b]0;x\\x07', 'POST', '[["x-h","a\\nb\\u009b"]]',
               convert_to(E'hi\\x1b]0;pwned\\x07\\x1b[2J\\tend', 'UTF8'), '{cli-ctl}', now() + interval '1 hour', now(), now())
       RETURNING id::text`,
      f.projectId,
    );
    const show = await ttr("trigger", "show", "--project", f.projectId, "--id", t!.id);
    expect(show.code, show.stderr).toBe(0);
    // no control character but the lines' breaks and the columns' tabs
    const controls = [...show.stdout].filter((c) => c !== "\n" && c !== "\t" && (c < " " || (c >= "\u007f" && c <= "\u009f")));
    expect(controls).toEqual([]);
    expect(show.stdout).toContain("  body: hi\\x1b]0;pwned\\x07\\x1b[2J\\tend\n");
    expect(show.stdout).toContain("  x-h: a\\nb\\x9b\n");
    expect(show.stdout).toContain("  title: T\\x07\n");
    expect(show.stdout).toContain("http://127.0.0.1:9/\\x1b]0;x\\x07\tk\\x1b[2J\t");
    const list = await ttr("trigger", "list", "--project", f.projectId, "--tag", "cli-ctl");
    expect(list.stdout.split("\t").length).toBe(7);
    expect(list.stdout).not.toContain("\u001b");
    const exact = await json<{ trigger: { body: string; customKey: string } }>("trigger", "show", "--project", f.projectId, "--id", t!.id);
    expect(exact.trigger).toMatchObject({ body: "hi\u001b]0;pwned\u0007\u001b[2J\tend", customKey: "k\u001b[2J" });
    expect((await ttr("trigger", "list", "--project", f.projectId, "--tag", "none-such")).stdout).toBe("no triggers\n");
    expect((await ttr("dead-letters", "list", "--project", f.projectId, "--trigger", t!.id)).stdout).toBe("no dead letters\n");
  });

  it("stdout closed early (ttr … | head -c 100): no stack trace, and the exit code the command had", async () => {
    const [t] = await f.db.$queryRawUnsafe<Array<{ id: string }>>(
      `INSERT INTO triggers (project_id, status, url, method, headers, body, tags, scheduled_at, created_at, updated_at)
       VALUES ($1::uuid, 'registered', 'http://127.0.0.1:9/', 'POST', '[]', convert_to(repeat('x', 1000000), 'UTF8'), '{}', now() + interval '1 hour', now(), now())
       RETURNING id::text`,
      f.projectId,
    );
    const child = spawn(process.execPath, [main, "trigger", "show", "--project", f.projectId, "--id", t!.id], { env: { ...process.env, DATABASE_URL: f.databaseUrl } });
    let stderr = "";
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    child.stdout.once("data", () => child.stdout.destroy());
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(stderr).toBe("");
    expect(code).toBe(0);
  });

  it("a project that does not exist is an error (exit 1) for every command that reads one, not an empty page", async () => {
    const nowhere = "00000000-0000-4000-8000-00000000abcd";
    for (const args of [
      ["trigger", "list", "--project", nowhere],
      ["trigger", "show", "--project", nowhere, "--id", nowhere],
      ["dead-letters", "list", "--project", nowhere],
      ["dead-letters", "discard", "--project", nowhere],
      ["dead-letters", "replay", "--project", nowhere, "--trigger", nowhere],
    ]) {
      const out = await ttr(...args, "--json");
      expect(out.code, args.join(" ")).toBe(1);
      expect(out.stderr).toBe("ttr: project not found\n");
      expect(out.stdout).toBe("");
    }
  });

  it("trigger cancel by id and by custom key; a queued one answers as /cancel does", async () => {
    const byId = await seed("registered");
    expect(await json("trigger", "cancel", "--project", f.projectId, "--id", byId)).toEqual({ cancelled: true });
    await seed("registered", { customKey: "cli-key" });
    expect(await json("trigger", "cancel", "--project", f.projectId, "--custom-key", "cli-key")).toEqual({ cancelled: true });
    const [row] = await f.db.$queryRawUnsafe<Array<{ status: string }>>(`SELECT status::text FROM triggers WHERE id = $1::uuid`, byId);
    expect(row!.status).toBe("cancelled");
    const queued = await seed("queued");
    const refused = await ttr("trigger", "cancel", "--project", f.projectId, "--id", queued, "--json");
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe("ttr: Job is no longer cancellable (status=queued)\n");
    const both = await ttr("trigger", "cancel", "--project", f.projectId, "--id", queued, "--custom-key", "x");
    expect(both.code).toBe(2);
  });

  it("dead-letters list shows only dead letters; replay queues the trigger with a new planned attempt", async () => {
    const dead = await seed("completed", { attempt: { responseStatus: 503, deadLetter: true } });
    await seed("completed", { attempt: { responseStatus: 200, deadLetter: false } });
    const list = await json<{ executions: Array<{ triggerId: string; isDeadLetter: boolean }> }>("dead-letters", "list", "--project", f.projectId, "--trigger", dead);
    expect(list.executions).toEqual([expect.objectContaining({ triggerId: dead, isDeadLetter: true })]);
    const all = await json<{ executions: Array<{ isDeadLetter: boolean }> }>("dead-letters", "list", "--project", f.projectId);
    expect(all.executions.length).toBeGreaterThan(0);
    expect(all.executions.every((e) => e.isDeadLetter)).toBe(true);
    const replay = await json<{ execution: Record<string, unknown> }>("dead-letters", "replay", "--project", f.projectId, "--trigger", dead);
    expect(replay.execution).toMatchObject({ triggerId: dead, attemptNumber: 2, triggeredBy: "replay", status: "planned" });
    const [row] = await f.db.$queryRawUnsafe<Array<{ status: string }>>(`SELECT status::text FROM triggers WHERE id = $1::uuid`, dead);
    expect(row!.status).toBe("queued");
    const again = await ttr("dead-letters", "replay", "--project", f.projectId, "--trigger", dead);
    expect(again.code).toBe(1);
    expect(again.stderr).toBe("ttr: Trigger cannot be replayed (status=queued)\n");
  });

  it("user reset-password prints a new random password once, which then signs in", async () => {
    await createUser(f.db, f.projectId, "reset@example.com", "old password here");
    const out = await json<{ userId: string; password: string; sessionsEnded: number }>("user", "reset-password", "--email", "reset@example.com");
    expect(out.password).toMatch(/^[A-Za-z0-9_-]{24}$/);
    const [row] = await f.db.$queryRawUnsafe<Array<{ password_hash: string }>>(`SELECT password_hash FROM users WHERE id = $1::uuid`, out.userId);
    expect(row!.password_hash).not.toContain(out.password);
    expect(await verifyPassword(out.password, row!.password_hash)).toBe(true);
    expect(await verifyPassword("old password here", row!.password_hash)).toBe(false);
  });
});
