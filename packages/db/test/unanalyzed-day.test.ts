// Reads that name one trigger by its ID keep an index-served plan on a day
// partition PostgreSQL has no statistics for yet: the day just begun, a
// partition autovacuum has not reached, or a server that runs without it.
// Without statistics the planner takes a condition on the project for a
// selective one and reads the project's index beside the trigger's, which
// costs the whole day's rows of that project for one row (docs/storage.md).
// The statements run here with the generic plan their pool keeps.
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { freshDatabase, type TestDatabase } from "../../../test/support/db.js";
import { createDb, createProject, SHORT_STATEMENTS, setLocal, sqlLiteral } from "../src/index.js";
import { sql } from "../src/sql.js";

/** triggers of today, each with one execution, in one project */
const ROWS = 100_000;
/** what reading one trigger's rows may touch: a few index pages per day partition and the rows */
const BUFFERS = 150;
const BUFFERS_PER_ROW = 8;

let tdb: TestDatabase;
let client: pg.Client;
let project: string;
const day = new Date().toISOString().slice(0, 10);
const suffix = day.replaceAll("-", "");
/** the ID of today's trigger number `i` (1 is the oldest) */
const trigger = (i: number) => `md5('t' || ${i})::uuid`;

beforeAll(async () => {
  tdb = await freshDatabase();
  const db = createDb(tdb.url, { max: 1 });
  project = (await createProject(db, "busy", 1_000_000_000)).projectId;
  await db.$disconnect();
  client = new pg.Client({ connectionString: tdb.url });
  await client.connect();
  // kept without statistics for the test, wherever autovacuum runs
  for (const table of ["triggers", "executions", "trigger_tags"]) await client.query(`ALTER TABLE ${table}_p${suffix} SET (autovacuum_enabled = false)`);
  await client.query(
    `INSERT INTO triggers (id, project_id, custom_key, status, url, method, headers, tags, scheduled_at, attempts, created_at, updated_at, part_day)
     SELECT md5('t' || i)::uuid, $1, 'key-' || i, 'completed', 'http://127.0.0.1:9/t', 'GET', '[]', '{}', at, 1, at, at, $3::date
     FROM generate_series(1, $2::int) AS i, LATERAL (SELECT now() - make_interval(secs => ($2::int - i) / 10.0) AS at) AS d`,
    [project, ROWS, day],
  );
  await client.query(
    `INSERT INTO executions (id, part_day, trigger_id, project_id, attempt_number, triggered_by, status, planned_at, created_at, completed_at)
     SELECT md5('e' || i)::uuid, $3::date, md5('t' || i)::uuid, $1, 1, 'scheduler', 'complete', at, at, at
     FROM generate_series(1, $2::int) AS i, LATERAL (SELECT now() - make_interval(secs => ($2::int - i) / 10.0) AS at) AS d`,
    [project, ROWS, day],
  );
}, 120_000);

afterAll(async () => {
  await client?.end();
  await tdb?.drop();
});

/** Buffers and rows of the statement's generic plan (EXPLAIN ANALYZE, rolled back); `args` are SQL literals. */
async function genericPlan(name: string, args: string[]): Promise<{ buffers: number; rows: number }> {
  await client.query("BEGIN");
  try {
    for (const set of setLocal({ ...SHORT_STATEMENTS, plan_cache_mode: "force_generic_plan" })) await client.query(set);
    await client.query(`PREPARE unanalyzed AS ${sql(name)}`);
    const { rows } = await client.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE unanalyzed(${args.join(", ")})`);
    const plan = rows[0]["QUERY PLAN"][0].Plan;
    return { buffers: (plan["Shared Hit Blocks"] ?? 0) + (plan["Shared Read Blocks"] ?? 0), rows: plan["Actual Rows"] ?? 0 };
  } finally {
    await client.query("ROLLBACK");
    await client.query("DEALLOCATE ALL");
  }
}

it("today's partitions have no statistics", async () => {
  const { rows } = await client.query<{ relname: string; reltuples: number }>("SELECT relname, reltuples FROM pg_class WHERE relname = ANY($1)", [
    [`triggers_p${suffix}`, `executions_p${suffix}`],
  ]);
  expect(rows.map((r) => r.reltuples)).toEqual([-1, -1]);
});

const P = () => sqlLiteral(project);
// The oldest trigger of the day, and the newest: a walk of the project's
// index by date from either end would read most of the day for one of them.
const cases: Array<[label: string, name: string, args: () => string[]]> = [
  ["executions of the day's oldest trigger, as a page", "session_list_executions", () => [P(), trigger(1), "false", "NULL", "NULL", "50"]],
  ["executions of the day's newest trigger, as a page", "session_list_executions", () => [P(), trigger(ROWS), "false", "NULL", "NULL", "50"]],
  ["a trigger's executions (its detail)", "session_trigger_executions", () => [P(), trigger(1)]],
  ["a trigger by ID (its detail)", "session_load_triggers", () => [P(), `ARRAY[${trigger(1)}]`, "NULL"]],
  ["a trigger by ID and day", "session_load_triggers", () => [P(), `ARRAY[${trigger(1)}]`, `ARRAY[${sqlLiteral(day)}::date]`]],
  ["the kind of a trigger that Replay now refused", "session_find_any_trigger", () => [P(), trigger(1)]],
  ["a trigger to cancel by ID (DELETE /cancel)", "find_trigger_by_id", () => [P(), trigger(1)]],
];

it.each(cases)("%s reads the trigger's rows only", async (_label, name, args) => {
  const plan = await genericPlan(name, args());
  expect(plan.rows, `${name} finds the trigger`).toBeGreaterThan(0);
  expect(plan.buffers, `${name} touched ${plan.buffers} buffers for ${plan.rows} rows`).toBeLessThanOrEqual(BUFFERS + BUFFERS_PER_ROW * plan.rows);
});

it("another project's ID still finds nothing", async () => {
  const other = sqlLiteral("00000000-0000-4000-8000-000000000001");
  for (const [, name, args] of cases) {
    const values = args();
    values[0] = other;
    expect((await genericPlan(name, values)).rows, name).toBe(0);
  }
});
