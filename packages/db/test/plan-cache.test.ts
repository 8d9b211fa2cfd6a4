// How the plain pool plans its statements (packages/db/src/pool.ts): a pool
// with genericPlans keeps one plan per prepared statement from the first
// call, while the statements planned on each call (PLANNED_PER_CALL) go with
// their values written in, so they are planned for those values still.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, type TestDatabase } from "../../../test/support/db.js";
import { countHeld, createPgRunner, createReadsRunner, markDispatched, type PgRunner, type PgRunnerOptions, planDashboardReads, type SqlRunner, sql, withValuesWritten } from "../src/index.js";

let tdb: TestDatabase;
beforeAll(async () => {
  tdb = await freshDatabase();
});
afterAll(async () => {
  await tdb?.drop();
});

interface Prepared {
  statement: string;
  generic_plans: string;
  custom_plans: string;
}

/** The prepared statements of the runner's one connection, with how often each was planned which way. */
async function prepared(runner: PgRunner): Promise<Prepared[]> {
  return runner.$transaction(async (tx) => tx.$queryRawUnsafe<Prepared[]>("SELECT statement, generic_plans::text, custom_plans::text FROM pg_prepared_statements"));
}

/** How count_held was planned over three calls on a new pool made with `opts`. */
async function countHeldPlans(opts: PgRunnerOptions): Promise<Prepared | undefined> {
  const runner = createPgRunner(tdb.url, { max: 1, ...opts });
  try {
    for (let i = 0; i < 3; i++) await countHeld(runner, new Date());
    return (await prepared(runner)).find((p) => p.statement === sql("count_held"));
  } finally {
    await runner.end();
  }
}

describe("withValuesWritten", () => {
  it("writes each value as a quoted literal, arrays and NULL included", async () => {
    const text = withValuesWritten("SELECT $1::text AS a, $2::uuid[] AS b, $3::int AS c, $10::text AS d", [
      "it's",
      ["00000000-0000-4000-8000-000000000001"],
      null,
      ...Array(6).fill(null),
      "ten",
    ]);
    expect(text).toBe(`SELECT 'it''s'::text AS a, '{"00000000-0000-4000-8000-000000000001"}'::uuid[] AS b, NULL::int AS c, 'ten'::text AS d`);
  });

  it("drops comments first, so that a value holding a newline cannot end one", async () => {
    const runner = createPgRunner(tdb.url, { max: 1 });
    try {
      const value = "x\nSELECT 'injected' AS v; --";
      const text = withValuesWritten("-- $1 is the value\nSELECT $1::text AS v -- echoes $1\n", [value]);
      expect(text).not.toContain("is the value");
      expect(text).not.toContain("echoes");
      const rows = await runner.$queryRawUnsafe<Array<{ v: string }>>(text);
      expect(rows).toEqual([{ v: value }]);
    } finally {
      await runner.end();
    }
  });
});

describe("a pool with genericPlans", () => {
  it("keeps a generic plan from a statement's first call", async () => {
    expect(await countHeldPlans({ genericPlans: true })).toMatchObject({ generic_plans: "3", custom_plans: "0" });
  });

  it("sends the statements planned per call unprepared, with their values written in", async () => {
    const runner = createPgRunner(tdb.url, { max: 1, genericPlans: true });
    try {
      const marked = await markDispatched(runner, [{ executionId: "00000000-0000-4000-8000-000000000000", partDay: new Date().toISOString().slice(0, 10) }]);
      expect(marked).toEqual([]);
      expect((await prepared(runner)).map((p) => p.statement)).not.toContain(sql("mark_dispatched"));
    } finally {
      await runner.end();
    }
  });

  it("is left to PostgreSQL otherwise: custom plans first", async () => {
    expect(await countHeldPlans({})).toMatchObject({ generic_plans: "0", custom_plans: "3" });
  });
});

describe("every pool of this kind", () => {
  /** The server setting `name` as a session of a pool made with `opts` sees it. */
  const settingOn = async (opts: PgRunnerOptions, name: string) => {
    const runner = createPgRunner(tdb.url, { max: 1, ...opts });
    try {
      return (await runner.$queryRawUnsafe<Array<{ value: string }>>("SELECT current_setting($1) AS value", name))[0]?.value;
    } finally {
      await runner.end();
    }
  };

  it("runs with jit off unless its settings say otherwise", async () => {
    const jit = (opts: PgRunnerOptions) => settingOn(opts, "jit");
    expect(await jit({})).toBe("off");
    expect(await jit({ genericPlans: true, settings: { statement_timeout: 1000 } })).toBe("off");
    expect(await jit({ settings: { jit: "on" } })).toBe("on");
  });

  it("plans no parallel workers unless its settings say otherwise", async () => {
    const workers = (opts: PgRunnerOptions) => settingOn(opts, "max_parallel_workers_per_gather");
    expect(await workers({})).toBe("0");
    expect(await workers({ genericPlans: true })).toBe("0");
    expect(await workers({ customPlans: true })).toBe("0");
    expect(await workers({ settings: { max_parallel_workers_per_gather: 2 } })).toBe("2");
  });

  it("the dashboard's read pool keeps generic plans under a statement timeout", async () => {
    const reads = createReadsRunner(tdb.url, { max: 1, statementTimeoutMs: 1234 });
    try {
      const [row] = await reads.$queryRawUnsafe<Array<{ mode: string; timeout: string; jit: string }>>(
        "SELECT current_setting('plan_cache_mode') AS mode, current_setting('statement_timeout') AS timeout, current_setting('jit') AS jit",
      );
      expect(row).toEqual({ mode: "force_generic_plan", timeout: "1234ms", jit: "off" });
    } finally {
      await reads.end();
    }
  });
});

describe("eachIdleConnection", () => {
  it("runs once on each idle connection, opening none, and plans the dashboard reads there", async () => {
    const runner = createReadsRunner(tdb.url, { max: 4, statementTimeoutMs: 5000 });
    try {
      const pidOf = async (db: SqlRunner) => (await db.$queryRawUnsafe<Array<{ pid: number }>>("SELECT pg_backend_pid() AS pid, pg_sleep(0.05)"))[0]!.pid;
      // two connections at once: the pool opens two
      const opened = await Promise.all([runner.$transaction(pidOf), runner.$transaction(pidOf)]);
      expect(new Set(opened).size).toBe(2);
      const seen: number[] = [];
      const count = await runner.eachIdleConnection(async (c) => {
        seen.push(await pidOf(c));
        await planDashboardReads(c);
      });
      expect(count).toBe(2);
      expect(seen.sort()).toEqual([...opened].sort());
      // the reads are prepared on both now
      const prepared = await runner.eachIdleConnection(async (c) => {
        const rows = await c.$queryRawUnsafe<Array<{ n: number }>>("SELECT count(*)::int AS n FROM pg_prepared_statements WHERE statement = $1", sql("session_list_triggers"));
        expect(rows[0]!.n).toBe(1);
      });
      expect(prepared).toBe(2);
    } finally {
      await runner.end();
    }
  });
});
