// POST /triggers/<id>/replay and /retry: Replay now and Retry now
// (docs/api/dashboard-api.md; docs/concepts.md: "completed → queued", dead letters).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type TestApi } from "../../../test/support/api.js";
import { triggerById } from "../../../test/support/rows.js";
import { expectNoWrites } from "../../../test/support/snapshot.js";
import { otherProject, seedExecution, seedGenerator, seedTrigger, signIn, type TestSession } from "../../../test/support/session.js";

let api: TestApi;
let s: TestSession;
beforeAll(async () => {
  api = await startApi();
  s = await signIn(api);
});
afterAll(() => api.close());

interface StoredExecution {
  id: string;
  attemptNumber: number;
  triggeredBy: string;
  status: string;
  plannedAt: Date;
  dispatchedAt: Date | null;
  isDeadLetter: boolean;
}

async function executionsOf(triggerId: string): Promise<StoredExecution[]> {
  return api.db.$queryRawUnsafe<StoredExecution[]>(
    `SELECT id::text, attempt_number AS "attemptNumber", triggered_by::text AS "triggeredBy", status::text,
            planned_at AS "plannedAt", dispatched_at AS "dispatchedAt", is_dead_letter AS "isDeadLetter"
     FROM executions WHERE trigger_id = $1::uuid ORDER BY attempt_number`,
    triggerId,
  );
}

async function attemptsOf(triggerId: string): Promise<number> {
  const rows = await api.db.$queryRawUnsafe<Array<{ attempts: number }>>(`SELECT attempts FROM triggers WHERE id = $1::uuid`, triggerId);
  return rows[0]!.attempts;
}

/** A completed trigger whose attempts 1..n were made, the last one a dead letter. */
async function completed(n: number, extra: { generatorId?: string } = {}): Promise<string> {
  const id = await seedTrigger(api, api.projectId, { status: "completed", attempts: n, ...extra });
  for (let i = 1; i <= n; i++) {
    await seedExecution(api, api.projectId, id, { attemptNumber: i, triggeredBy: i === 1 ? "scheduler" : "retry", completedAt: new Date(), responseStatus: 500, isDeadLetter: i === n });
  }
  return id;
}

const near = (iso: string, ms = 5000) => Math.abs(Date.parse(iso) - Date.now()) < ms;

describe("Replay now and Retry now on a completed trigger", () => {
  for (const action of ["replay", "retry"] as const) {
    it(`${action}: 202, trigger queued, a planned execution with the next attempt number, due now`, async () => {
      const id = await completed(2);
      const res = await s.call("POST", `/triggers/${id}/${action}`);
      expect(res.status).toBe(202);
      const { execution } = res.json();
      expect(execution).toMatchObject({
        triggerId: id,
        attemptNumber: 3,
        triggeredBy: action,
        status: "planned",
        startedAt: null,
        completedAt: null,
        responseStatus: null,
        responseHeaders: null,
        responseBody: null,
        responseSize: null,
        errorMessage: null,
        isDeadLetter: false,
      });
      expect(near(execution.plannedAt)).toBe(true);
      expect((await triggerById(api.db, id))?.status).toBe("queued");
      expect(await attemptsOf(id)).toBe(3);
      const rows = await executionsOf(id);
      expect(rows.map((e) => [e.attemptNumber, e.status, e.isDeadLetter])).toEqual([
        [1, "complete", false],
        [2, "complete", true], // the flag stays after a replay (docs/concepts.md, dead letters)
        [3, "planned", false],
      ]);
      expect(rows[2]!.dispatchedAt).toBeNull();
      expect(rows[2]!.id).toBe(execution.id);
      // It shows on the trigger's page too.
      expect((await s.get(`/triggers/${id}`)).executions.map((e: any) => e.attemptNumber)).toEqual([1, 2, 3]);
    });
  }

  it("works for an instance of a recurring trigger", async () => {
    const gen = await seedGenerator(api, api.projectId);
    const id = await completed(1, { generatorId: gen });
    const res = await s.call("POST", `/triggers/${id}/replay`);
    expect(res.status).toBe(202);
    expect(res.json().execution.attemptNumber).toBe(2);
  });

  it("a second click once the first made it queued gets 410, and concurrent clicks plan exactly one attempt", async () => {
    const id = await completed(1);
    expect((await s.call("POST", `/triggers/${id}/replay`)).status).toBe(202);
    const again = await s.call("POST", `/triggers/${id}/replay`);
    expect(again.status).toBe(410);
    expect(again.json()).toEqual({ _tag: "Gone", message: "Trigger cannot be replayed (status=queued)" });

    const raced = await completed(1);
    const replies = await Promise.all(Array.from({ length: 8 }, (_, i) => s.call("POST", `/triggers/${raced}/${i % 2 ? "retry" : "replay"}`)));
    expect(replies.filter((r) => r.status === 202)).toHaveLength(1);
    for (const r of replies.filter((r) => r.status !== 202)) {
      expect(r.status).toBe(410);
      expect(r.json().message).toMatch(/\(status=queued\)$/);
    }
    expect((await executionsOf(raced)).map((e) => e.attemptNumber)).toEqual([1, 2]);
    expect(await attemptsOf(raced)).toBe(2);
  });

  it("a trigger replayed to completion can be replayed again", async () => {
    const id = await completed(1);
    expect((await s.call("POST", `/triggers/${id}/replay`)).status).toBe(202);
    await api.db.$executeRawUnsafe(`UPDATE executions SET status = 'complete', completed_at = now(), response_status = 200 WHERE trigger_id = $1::uuid AND status = 'planned'`, id);
    await api.db.$executeRawUnsafe(`UPDATE triggers SET status = 'completed' WHERE id = $1::uuid`, id);
    const res = await s.call("POST", `/triggers/${id}/retry`);
    expect(res.status).toBe(202);
    expect(res.json().execution).toMatchObject({ attemptNumber: 3, triggeredBy: "retry" });
  });
});

describe("Retry now on a retrying trigger", () => {
  it("moves the pending retry's plannedAt to now; same execution, attempt number and triggeredBy", async () => {
    const id = await seedTrigger(api, api.projectId, { status: "retrying", attempts: 2 });
    await seedExecution(api, api.projectId, id, { attemptNumber: 1, completedAt: new Date(), responseStatus: 503 });
    const pending = await seedExecution(api, api.projectId, id, {
      attemptNumber: 2,
      triggeredBy: "retry",
      status: "planned",
      plannedAt: new Date(Date.now() + 3600_000),
    });
    const res = await s.call("POST", `/triggers/${id}/retry`);
    expect(res.status).toBe(202);
    const { execution } = res.json();
    expect(execution).toMatchObject({ id: pending, attemptNumber: 2, triggeredBy: "retry", status: "planned" });
    expect(near(execution.plannedAt)).toBe(true);
    const rows = await executionsOf(id);
    expect(rows).toHaveLength(2);
    expect(Math.abs(rows[1]!.plannedAt.getTime() - Date.now())).toBeLessThan(5000);
    expect((await triggerById(api.db, id))?.status).toBe("retrying");
    expect(await attemptsOf(id)).toBe(2);
  });

  it("a retry already due keeps its time", async () => {
    const id = await seedTrigger(api, api.projectId, { status: "retrying", attempts: 2 });
    const due = new Date(Date.now() - 60_000);
    await seedExecution(api, api.projectId, id, { attemptNumber: 2, triggeredBy: "retry", status: "planned", plannedAt: due });
    const res = await s.call("POST", `/triggers/${id}/retry`);
    expect(res.status).toBe(202);
    expect(res.json().execution.plannedAt).toBe(due.toISOString());
  });

  it("Replay now is refused on a retrying trigger", async () => {
    const id = await seedTrigger(api, api.projectId, { status: "retrying", attempts: 2 });
    await seedExecution(api, api.projectId, id, { attemptNumber: 2, triggeredBy: "retry", status: "planned", plannedAt: new Date(Date.now() + 3600_000) });
    const res = await expectNoWrites(api.db, () => s.call("POST", `/triggers/${id}/replay`));
    expect(res.status).toBe(410);
    expect(res.json()).toEqual({ _tag: "Gone", message: "Trigger cannot be replayed (status=retrying)" });
  });
});

describe("refusals", () => {
  it("410 for every other status, with the status in the message, and nothing written", async () => {
    for (const status of ["registered", "skipped", "queued", "running", "cancelled"]) {
      const id = await seedTrigger(api, api.projectId, { status, attempts: 1 });
      for (const [action, verb] of [["replay", "replayed"], ["retry", "retried"]]) {
        const res = await expectNoWrites(api.db, () => s.call("POST", `/triggers/${id}/${action}`));
        expect(res.status, `${action} ${status}`).toBe(410);
        expect(res.json()).toEqual({ _tag: "Gone", message: `Trigger cannot be ${verb} (status=${status})` });
      }
    }
  });

  it("410 for a recurring trigger", async () => {
    for (const status of ["active", "cancelled"]) {
      const id = await seedGenerator(api, api.projectId, { status });
      const res = await expectNoWrites(api.db, () => s.call("POST", `/triggers/${id}/retry`));
      expect(res.status).toBe(410);
      expect(res.json()).toEqual({ _tag: "Gone", message: `Trigger cannot be retried (status=${status})` });
    }
  });

  it("404 Trigger not found for an unknown, malformed or foreign ID", async () => {
    const other = await otherProject(api);
    const theirs = await seedTrigger(api, other.projectId, { status: "completed", attempts: 1 });
    for (const id of ["00000000-0000-4000-8000-000000000000", "xyz", theirs]) {
      for (const action of ["replay", "retry"]) {
        const res = await expectNoWrites(api.db, () => s.call("POST", `/triggers/${id}/${action}`));
        expect(res.status).toBe(404);
        expect(res.json()).toEqual({ _tag: "NotFound", message: "Trigger not found" });
      }
    }
    expect((await other.session.call("POST", `/triggers/${theirs}/replay`)).status).toBe(202);
  });

  it("401 without a session", async () => {
    const id = await completed(1);
    const res = await expectNoWrites(api.db, () => api.call("POST", `/triggers/${id}/replay`));
    expect(res.status).toBe(401);
    expect(res.json()).toEqual({ _tag: "Unauthorized", message: "Unauthorized" });
  });
});
