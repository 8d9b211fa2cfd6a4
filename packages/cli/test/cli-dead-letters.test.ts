// `ttr dead-letters replay|discard` in bulk (docs/api/dead-letters.md):
// the count first, the action only with --yes, as POST /dead-letters/*
// answer; the single-trigger `replay --trigger` form is covered in
// cli-results.test.ts.
import { describe, expect, it } from "vitest";
import { cliProject } from "./cli-support.js";

const f = cliProject("bulk");
const { ttr, json } = f;

/** A completed trigger whose one attempt, completed at `at`, is a dead letter. */
async function deadLetter(tag: string, at: string): Promise<string> {
  const [t] = await f.db.$queryRawUnsafe<Array<{ id: string }>>(
    `INSERT INTO triggers (project_id, status, url, method, headers, tags, scheduled_at, attempts, created_at, updated_at)
     VALUES ($1::uuid, 'completed', 'http://127.0.0.1:9/hook', 'POST', '[]', $2::text[], $3::timestamptz, 1, $3::timestamptz, now())
     RETURNING id::text`,
    f.projectId, [tag], at,
  );
  await f.db.$executeRawUnsafe(
    `INSERT INTO executions (trigger_id, part_day, project_id, attempt_number, triggered_by, status, planned_at, started_at, completed_at,
                             response_status, response_headers, response_body, response_size, is_dead_letter)
     SELECT t.id, t.part_day, t.project_id, 1, 'scheduler', 'complete', $2::timestamptz, $2::timestamptz, $2::timestamptz, 503, '{}'::jsonb, '', 0, true
     FROM triggers t WHERE t.id = $1::uuid`,
    t!.id, at,
  );
  return t!.id;
}

const statusOf = async (id: string) =>
  (await f.db.$queryRawUnsafe<Array<{ status: string }>>("SELECT status::text FROM triggers WHERE id = $1::uuid", id))[0]!.status;

describe("dead-letters replay and discard in bulk", () => {
  it("replay prints the count and changes nothing without --yes; with --yes it queues the selected triggers", async () => {
    const a = await deadLetter("cli-bulk", "2026-03-01T10:00:00Z");
    const b = await deadLetter("cli-bulk", "2026-03-01T11:00:00Z");
    const outside = await deadLetter("cli-bulk", "2026-03-02T10:00:00Z");
    const range = ["--tag", "cli-bulk", "--from", "2026-03-01", "--to", "2026-03-02"];
    expect(await json("dead-letters", "replay", "--project", f.projectId, ...range)).toEqual({ count: 2, dryRun: true });
    const text = await ttr("dead-letters", "replay", "--project", f.projectId, ...range);
    expect(text.code).toBe(0);
    expect(text.stdout).toBe("2 dead letter(s) would be replayed; run again with --yes to replay them\n");
    expect(await statusOf(a)).toBe("completed");
    expect(await json("dead-letters", "replay", "--project", f.projectId, ...range, "--yes")).toEqual({ count: 2, dryRun: false });
    expect([await statusOf(a), await statusOf(b), await statusOf(outside)]).toEqual(["queued", "queued", "completed"]);
  });

  it("discard needs --yes too, and takes the dead letters off the list", async () => {
    const d = await deadLetter("cli-discard", "2026-04-01T10:00:00Z");
    expect(await json("dead-letters", "discard", "--project", f.projectId, "--tag", "cli-discard")).toEqual({ count: 1, dryRun: true });
    const done = await ttr("dead-letters", "discard", "--project", f.projectId, "--tag", "cli-discard", "--yes");
    expect(done.stdout).toBe("1 dead letter(s) discarded\n");
    const list = await json<{ executions: unknown[] }>("dead-letters", "list", "--project", f.projectId, "--trigger", d);
    expect(list.executions).toEqual([]);
    expect(await statusOf(d)).toBe("completed");
  });

  it("refuses a bad range and --trigger mixed with bulk flags as usage errors (exit 2)", async () => {
    const bad = await ttr("dead-letters", "discard", "--project", f.projectId, "--from", "2026-03-02", "--to", "2026-03-01");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^ttr: from must be before to\n\nusage: ttr dead-letters discard /);
    const mixed = await ttr("dead-letters", "replay", "--project", f.projectId, "--trigger", "00000000-0000-4000-8000-000000000000", "--yes");
    expect(mixed.code).toBe(2);
  });
});
