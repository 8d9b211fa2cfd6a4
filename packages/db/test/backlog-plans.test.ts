// Batches of a backlog stay in proportion to their size. A burst puts
// thousands of triggers due in the same second, often in a day partition
// autovacuum has not analyzed yet (each day's is new, and a burst is often
// scheduled moments before it is due). The statements that take those rows
// in batches must then still read about as many rows as the batch: an
// order the index cannot give, or a join between two steps' results that
// the planner runs as a nested loop, makes every batch cost as much as the
// whole backlog (docs/storage.md, the rule: no read grows with the
// history). Each case runs in a rolled-back transaction.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, type TestDatabase } from "../../../test/support/db.js";
import { createDb, createProject, SHORT_STATEMENTS, setLocal, sqlLiteral, withValuesWritten } from "../src/index.js";
import { sql } from "../src/sql.js";

let tdb: TestDatabase;
let client: pg.Client;
let project: string;

beforeAll(async () => {
  tdb = await freshDatabase();
  const db = createDb(tdb.url, { max: 1 });
  project = (await createProject(db, "backlog", 1_000_000_000)).projectId;
  await db.$disconnect();
  client = new pg.Client({ connectionString: tdb.url });
  await client.connect();
}, 60_000);

afterAll(async () => {
  await client?.end();
  await tdb?.drop();
});

interface PlanNode {
  "Actual Rows"?: number;
  "Rows Removed by Join Filter"?: number;
  "Rows Removed by Filter"?: number;
  Plans?: PlanNode[];
}

/** Row pairs the plan's joins looked at and threw away. */
function discardedByJoins(node: PlanNode): number {
  return (node["Rows Removed by Join Filter"] ?? 0) + (node.Plans ?? []).reduce((sum, child) => sum + discardedByJoins(child), 0);
}

/** The most rows any step of the plan read: those it produced and those its filter threw away. */
function widest(node: PlanNode): number {
  return Math.max((node["Actual Rows"] ?? 0) + (node["Rows Removed by Filter"] ?? 0), ...(node.Plans ?? []).map(widest));
}

/** The plan of `text` run under EXPLAIN ANALYZE, inside the caller's transaction. */
async function analyzed(text: string, values: unknown[]): Promise<PlanNode> {
  const { rows } = await client.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${text}`, values);
  return (rows[0]["QUERY PLAN"] as Array<{ Plan: PlanNode }>)[0]!.Plan;
}

/**
 * After `setup`, in a transaction rolled back afterwards: the named
 * statement's plan, planned for its values or (`generic`) once for any
 * values, as a statement a pool prepares is after its first executions.
 */
async function explain(name: string, values: unknown[], generic: boolean, setup: () => Promise<unknown>): Promise<{ rows: number; widest: number }> {
  await client.query("BEGIN");
  try {
    await setup();
    let plan: PlanNode;
    if (generic) {
      // as ttr's prepared-statement pools run them (packages/db/src/pool.ts)
      for (const set of setLocal({ ...SHORT_STATEMENTS, plan_cache_mode: "force_generic_plan" })) await client.query(set);
      await client.query(`PREPARE backlog_generic AS ${sql(name)}`);
      plan = await analyzed(`EXECUTE backlog_generic(${values.map(sqlLiteral).join(", ")})`, []);
    } else {
      plan = await analyzed(sql(name), values);
    }
    return { rows: plan["Actual Rows"] ?? 0, widest: widest(plan) };
  } finally {
    await client.query("ROLLBACK");
    if (generic) await client.query("DEALLOCATE ALL");
  }
}

const now = () => new Date();
/** The start of the current minute, moved by `minutes`. */
const thisMinute = (minutes: number) => new Date(Math.floor(Date.now() / 60_000) * 60_000 + minutes * 60_000);

// A burst: thousands due in the same second. The statements that take
// the oldest due first must read them in their index's order and stop at
// their limit; a sort key the index cannot give (an id compared as text,
// say) makes each batch read and sort every due trigger, so a burst of
// 50,000 costs each claim tens of milliseconds.
describe("a backlog due in one second is read only as far as the limit", () => {
  const BACKLOG = 20_000;
  const backlog = () =>
    client.query(
      `INSERT INTO triggers (project_id, status, url, method, headers, tags, scheduled_at, created_at, updated_at)
       SELECT $1, 'registered', 'http://127.0.0.1:9/b/' || i, 'POST', '[]', '{}', date_trunc('second', now()) - interval '5 seconds', now(), now()
       FROM generate_series(1, $2::int) AS i`,
      [project, BACKLOG],
    ).then(() => client.query("ANALYZE triggers"));
  const cases: Array<[label: string, name: string, values: () => unknown[], limit: number]> = [
    ["claim due triggers", "claim_due", () => [now(), 500], 500],
    ["overview: next due triggers", "session_overview_next", () => [project, thisMinute(-1), 10], 10],
  ];
  it.each(cases)("%s", async (_label, name, values, limit) => {
    for (const generic of [false, true]) {
      const plan = await explain(name, values(), generic, backlog);
      expect(plan.rows, `${name} returned too few rows: the backlog is not due`).toBe(limit);
      expect(plan.widest, `${name} (${generic ? "generic" : "custom"} plan) read ${plan.widest} rows for a limit of ${limit}`).toBeLessThanOrEqual(2 * limit);
    }
  });
});
// A stopped executor or a slow target leaves thousands of attempts in the
// queue. The overview counts one project's queue up to a limit: its plan
// (kept generic by the api's read pool, or planned for its values) must
// read that project's queue in order and stop there, whoever else has a
// backlog; an index over every project's queue, filtered and sorted,
// would read all of it on every call.
describe("a queue backlog is read only as far as the overview's limit", () => {
  const BACKLOG = 20_000;
  const LIMIT = 100;
  let neighbour: string;
  beforeAll(async () => {
    const db = createDb(tdb.url, { max: 1 });
    neighbour = (await createProject(db, "queue-neighbour", 1_000_000_000)).projectId;
    await db.$disconnect();
  });
  /** `count` attempts of `projectId` dispatched and waiting in the queue, then ANALYZE. */
  const queued = (projectId: string, count: number) => async () => {
    await client.query(
      `WITH t AS (
         INSERT INTO triggers (project_id, status, url, method, headers, tags, scheduled_at, attempts, created_at, updated_at)
         SELECT $1, 'queued', 'http://127.0.0.1:9/q/' || i, 'GET', '[]', '{}', now() - make_interval(secs => i), 1, now(), now()
         FROM generate_series(1, $2::int) AS i
         RETURNING id, project_id, part_day, scheduled_at
       )
       INSERT INTO executions (trigger_id, project_id, attempt_number, triggered_by, status, planned_at, dispatched_at, part_day)
       SELECT id, project_id, 1, 'scheduler', 'planned', scheduled_at, now(), part_day FROM t`,
      [projectId, count],
    );
    await client.query("ANALYZE triggers, executions");
  };
  const cases: Array<[label: string, owner: () => string, counted: number]> = [
    ["another project's backlog", () => neighbour, 0],
    ["the project's own backlog", () => project, LIMIT],
  ];
  it.each(cases)("%s", async (_label, owner, counted) => {
    for (const generic of [false, true]) {
      const plan = await explain("session_overview_queue", [project, LIMIT], generic, queued(owner(), BACKLOG));
      expect(plan.rows).toBe(1);
      expect(plan.widest, `session_overview_queue (${generic ? "generic" : "custom"} plan) read ${plan.widest} rows to count ${counted}`).toBeLessThanOrEqual(2 * LIMIT);
    }
  });
});
// Promoting a batch of that backlog before autovacuum has looked at the
// new rows (a burst scheduled moments before it is due): estimates are
// then far too low, and a statement that joins its own results back
// together is planned as a nested loop over both, a million comparisons
// for a batch of 1,000.
describe("batches of a backlog that has no statistics yet stay linear", () => {
  /**
   * In a rolled-back transaction: `count` triggers due now in a day
   * partition made now (as each day's is) and never analyzed, and `batch`
   * of them claimed. Runs `fn` with the claimed ones' promote_due values.
   */
  async function withUnanalyzedBacklog(count: number, batch: number, fn: (promoteValues: unknown[]) => Promise<void>): Promise<void> {
    await client.query("BEGIN");
    try {
      await client.query("SELECT ttr_ensure_partitions(current_date + 90, current_date + 90)");
      await client.query(
        `INSERT INTO triggers (project_id, status, url, method, headers, tags, scheduled_at, created_at, updated_at, part_day)
         SELECT $1, 'registered', 'http://127.0.0.1:9/b/' || i, 'POST', '[]', '{}', date_trunc('second', now()) - interval '5 seconds', now(), now(), current_date + 90
         FROM generate_series(1, $2::int) AS i`,
        [project, count],
      );
      const due = (await client.query<{ id: string; partDay: string }>(sql("claim_due"), [now(), batch])).rows;
      await fn([due.map((d) => d.id), [...new Set(due.map((d) => d.partDay))]]);
    } finally {
      await client.query("ROLLBACK");
    }
  }
  /** Runs `text` under EXPLAIN ANALYZE; checks it answered `rows` rows with its joins throwing few row pairs away. */
  async function expectLinear(name: string, text: string, values: unknown[], rows: number): Promise<void> {
    const plan = await analyzed(text, values);
    expect(plan["Actual Rows"], `${name}: rows it answered`).toBe(rows);
    expect(discardedByJoins(plan), `row pairs ${name}'s joins threw away`).toBeLessThanOrEqual(10 * rows);
  }

  it("promote_due", async () => {
    await withUnanalyzedBacklog(20_000, 1000, async (values) => {
      // sent with its values written in, as the scheduler sends it (PLANNED_PER_CALL)
      await expectLinear("promote_due", withValuesWritten(sql("promote_due"), values), [], 1000);
    });
  });
  // The executor starts and finishes attempts in batches of up to 200,
  // in the first minutes of a day before its partitions are analyzed too.
  const BATCH = 200;
  /** A promoted batch of an unanalyzed backlog: its start values, and finish values for outcomes of one kind. */
  async function promotedBatch(values: unknown[]) {
    const promoted = (await client.query<{ executionId: string; partDay: string }>(withValuesWritten(sql("promote_due"), values))).rows;
    const ids = promoted.map((p) => p.executionId);
    const day = promoted[0]!.partDay;
    const fill = <T>(v: T) => ids.map(() => v);
    return {
      start: [ids, day, 300, 30],
      /** every attempt answered `status`, retried at `retryAt` (null: not retried) */
      finish: (status: number, retryAt: Date | null) => [ids, fill(new Date()), fill(status), fill('{"content-type":"text/plain"}'), fill("ok"), fill(2), fill(null), fill(false), fill(retryAt), day],
    };
  }
  it("start_attempts and finish_attempts", async () => {
    await withUnanalyzedBacklog(2000, BATCH, async (values) => {
      const batch = await promotedBatch(values);
      await expectLinear("start_attempts", sql("start_attempts"), batch.start, BATCH);
      await expectLinear("finish_attempts", sql("finish_attempts"), batch.finish(200, null), BATCH);
    });
  });
  // A target that is down fails every attempt, and a retrying policy plans
  // a retry for each: the answer has a row per attempt and one per retry.
  it("finish_attempts when every attempt fails and is retried", async () => {
    await withUnanalyzedBacklog(2000, BATCH, async (values) => {
      const batch = await promotedBatch(values);
      await client.query(sql("start_attempts"), batch.start);
      await expectLinear("finish_attempts", sql("finish_attempts"), batch.finish(503, new Date(Date.now() + 60_000)), 2 * BATCH);
    });
  });
});
