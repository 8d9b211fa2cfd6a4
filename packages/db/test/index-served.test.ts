// Every statement that runs periodically (scheduler, executor, retention) or
// on a request (api, dashboard) stays index-served on a database holding
// over a million history rows: its plan reads no large table whole, and its
// buffer count and time stay bounded. A change that brings back a scan of
// the history fails here.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, type TestDatabase } from "../../../test/support/db.js";
import { seedHistory } from "../../../test/support/history.js";
import { createDb, createProject, PLANNED_PER_CALL, SHORT_STATEMENTS, setLocal, sqlLiteral } from "../src/index.js";
import { sql } from "../src/sql.js";

const HISTORY = 600_000; // finished triggers, each with one execution (1.2M history rows)
const PENDING = 100_000;
/** A relation this big must never be read whole. */
const LARGE = 5_000;
/**
 * Shared buffers (8 kB each) one statement may touch: a fixed allowance plus
 * a few per row it returns (index, heap, lock), never the history's.
 */
const BUFFERS = 1_000;
const BUFFERS_PER_ROW = 8;
/** Wall time of one statement on the server; generous for a loaded CI machine. */
const MILLIS = 250;

let tdb: TestDatabase;
let client: pg.Client;
let project: string;
let other: string;
const large = new Set<string>();
let historyTrigger: string;
let historyDay: string;
let pendingTrigger: string;
let pendingKey = "";
let historyKey = "";
let generator: string;
/** completed instances of `generator`, one every 86 s back over about 20 days */
const INSTANCES = 20_000;

beforeAll(async () => {
  tdb = await freshDatabase();
  const db = createDb(tdb.url, { max: 1 });
  project = (await createProject(db, "guard", 1_000_000_000)).projectId;
  other = (await createProject(db, "neighbour", 1_000_000_000)).projectId;
  await db.$disconnect();
  client = new pg.Client({ connectionString: tdb.url });
  await client.connect();
  await seedHistory(client, { projectIds: [project, other], history: HISTORY, pending: PENDING });
  const { rows } = await client.query<{ relname: string }>(
    "SELECT relname FROM pg_class WHERE relkind = 'r' AND reltuples > $1 AND relname ~ '^(triggers|executions)'",
    [LARGE],
  );
  for (const r of rows) large.add(r.relname);
  ({ id: historyTrigger, day: historyDay } = (await client.query("SELECT id::text, part_day::text AS day FROM triggers WHERE id = md5('t' || 2)::uuid")).rows[0]);
  const pending = await client.query(
    "SELECT id::text, custom_key FROM triggers WHERE project_id = $1 AND status = 'registered' AND custom_key IS NOT NULL LIMIT 1",
    [project],
  );
  pendingTrigger = pending.rows[0].id;
  pendingKey = pending.rows[0].custom_key;
  historyKey = (await client.query("SELECT custom_key FROM triggers WHERE id = md5('t' || 20)::uuid")).rows[0].custom_key;
  generator = (
    await client.query(
      `INSERT INTO generators (id, project_id, status, cron_expr, tz, url, method, headers, tags, created_at, updated_at)
       VALUES (gen_random_uuid(), $1, 'active', '* * * * *', 'UTC', 'http://127.0.0.1:9/cron', 'GET', '[]', '{}', now() - interval '30 days', now())
       RETURNING id::text`,
      [project],
    )
  ).rows[0].id;
  await client.query(
    `INSERT INTO triggers (project_id, generator_id, status, url, method, headers, tags, scheduled_at, attempts, created_at, updated_at, part_day)
     SELECT $1, $2, 'completed', 'http://127.0.0.1:9/cron', 'GET', '[]', '{}', at, 1, at, at, (at AT TIME ZONE 'UTC')::date
     FROM (SELECT date_trunc('second', now()) - make_interval(secs => 86 * i) AS at FROM generate_series(1, $3::int) AS i) s`,
    [project, generator, INSTANCES],
  );
  await client.query("ANALYZE triggers");
}, 240_000);

afterAll(async () => {
  await client?.end();
  await tdb?.drop();
});

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Shared Hit Blocks"?: number;
  "Shared Read Blocks"?: number;
  "Actual Rows"?: number;
  Plans?: PlanNode[];
}

function seqScans(node: PlanNode, out: string[] = []): string[] {
  if (node["Node Type"] === "Seq Scan" && node["Relation Name"] && large.has(node["Relation Name"])) out.push(node["Relation Name"]);
  for (const child of node.Plans ?? []) seqScans(child, out);
  return out;
}

/** Day partitions of the history that the plan names (those pruned while planning are not in it). */
function partitionsPlanned(node: PlanNode, out = new Set<string>()): Set<string> {
  const name = node["Relation Name"];
  if (name && /_p\d{8}$/.test(name)) out.add(name);
  for (const child of node.Plans ?? []) partitionsPlanned(child, out);
  return out;
}

interface Plan {
  scans: string[];
  partitions: Set<string>;
  buffers: number;
  rows: number;
  ms: number;
}

/**
 * Runs the named statement under EXPLAIN ANALYZE (rolled back) and returns
 * what its plan did. `generic`: planned once for any parameter values, as a
 * statement a pool prepares is after its first executions.
 */
async function explain(name: string, values: unknown[], generic = false): Promise<Plan> {
  await client.query("BEGIN");
  try {
    let text = `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${sql(name)}`;
    if (generic) {
      // as ttr's prepared-statement pools run them (packages/db/src/pool.ts)
      for (const set of setLocal({ ...SHORT_STATEMENTS, plan_cache_mode: "force_generic_plan" })) await client.query(set);
      await client.query(`PREPARE guard_generic AS ${sql(name)}`);
      const args = values.length ? `(${values.map(sqlLiteral).join(", ")})` : "";
      text = `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE guard_generic${args}`;
    }
    const { rows } = await client.query(text, generic ? [] : values);
    const { Plan: plan, "Execution Time": ms } = (rows[0]["QUERY PLAN"] as Array<{ Plan: PlanNode; "Execution Time": number }>)[0]!;
    return { scans: seqScans(plan), partitions: partitionsPlanned(plan), buffers: (plan["Shared Hit Blocks"] ?? 0) + (plan["Shared Read Blocks"] ?? 0), rows: plan["Actual Rows"] ?? 0, ms };
  } finally {
    await client.query("ROLLBACK");
    if (generic) await client.query("DEALLOCATE ALL");
  }
}

const now = () => new Date();
/** [10:00, 11:00) UTC yesterday: about a thousand history rows of which a few dozen dead letters. */
const yesterdayHour = (): [Date, Date] => {
  const from = new Date(`${new Date(Date.now() - 86_400_000).toISOString().slice(0, 10)}T10:00:00Z`);
  return [from, new Date(from.getTime() + 3_600_000)];
};
const today = () => new Date().toISOString().slice(0, 10);
/** The start of the current minute, moved by `minutes`. */
const thisMinute = (minutes: number) => new Date(Math.floor(Date.now() / 60_000) * 60_000 + minutes * 60_000);
const noId = "00000000-0000-4000-8000-000000000000";

type Case = [label: string, name: string, values: () => unknown[]];

const periodic: Case[] = [
  ["claim due triggers", "claim_due", () => [now(), 500]],
  ["promote claimed triggers", "promote_due", () => [[pendingTrigger], [today()]]],
  ["select dispatchable attempts", "select_dispatchable", () => [now(), 500]],
  ["select held attempts", "select_held", () => [now(), 100, [], []]],
  ["count held attempts", "count_held", () => [now()]],
  ["count held attempts per tag", "count_held_by_tag", () => [now(), 20]],
  ["next planned attempt", "next_planned_at", () => [now()]],
  ["stale dispatched attempts", "stale_dispatched", () => [new Date(Date.now() - 30_000), 500]],
  ["attempts waiting in the queue", "queue_depth", () => []],
  ["attempts the queue should hold", "in_queue_attempts", () => [new Date(Date.now() - 30_000), 500, null, null]],
  ["attempts the queue should hold, a later page", "in_queue_attempts", () => [new Date(Date.now() - 30_000), 500, new Date(Date.now() - 86_400_000), noId]],
  ["reap lost attempts", "reap_lost", () => [now(), 500]],
  ["recurring triggers without an instance", "generators_without_pending", () => [500]],
  ["lock recurring triggers", "lock_active_generators", () => [[noId]]],
  ["lock recurring triggers no one holds", "lock_free_active_generators", () => [[noId]]],
  ["create next instances", "create_next_instances", () => [[noId], [new Date(Date.now() + 60_000).toISOString()]]],
  ["limiting policies", "limiting_policies", () => []],
  ["in flight for a tag", "in_flight_for_tag", () => [project, "billing"]],
  ["a tag's starts in its last hour, after Redis lost its data", "tag_recent_starts", () => [project, "billing", new Date(Date.now() - 3_600_000), 1000]],
  ["tags of an attempt", "attempt_tags", () => [noId, today()]],
  ["start attempts", "start_attempts", () => [[noId], today(), 30, 60]],
  ["mark dispatched", "mark_dispatched", () => [[noId], [today()]]],
  ["hold attempts", "hold_attempts", () => [[noId], [today()], "billing"]],
  ["finish attempts", "finish_attempts", () => [[noId], [now()], [200], ["{}"], [""], [0], [null], [false], [null], today()]],
  ["per-minute counts past their two days", "retention_attempt_minutes", () => [now()]],
];

const perRequest: Case[] = [
  ["pending trigger by key", "find_pending_trigger_by_key", () => [project, pendingKey]],
  ["pending trigger by a finished key", "find_pending_trigger_by_key", () => [project, historyKey]],
  ["latest trigger by key", "find_latest_trigger_by_key", () => [project, historyKey]],
  ["trigger by id", "find_trigger_by_id", () => [project, historyTrigger]],
  ["cancel a trigger", "cancel_trigger", () => [pendingTrigger, project]],
  ["cancel a recurring trigger", "cancel_generator", () => [generator, project]],
  ["edit a pending trigger", "update_trigger_request", () => [pendingTrigger, pendingKey, "registered", null, "http://127.0.0.1:9/x", "POST", "[]", null, [], "schedule", new Date(Date.now() + 3_600_000), project]],
  ["cancel a recurring trigger's pending instance", "cancel_pending_instance", () => [generator, project]],
  ["active recurring trigger by key", "find_active_generator_by_key", () => [project, pendingKey]],
  ["recurring trigger by id", "find_generator_by_id", () => [project, generator]],
  ["edit a recurring trigger", "update_generator", () => [generator, null, null, "* * * * *", "UTC", "http://127.0.0.1:9/x", "POST", "[]", null, [], "schedule", project]],
  ["cancel triggers of a declaration or /bulk", "declare_cancel_triggers", () => [project, [pendingTrigger], [true], [today()]]],
  ["lock the recurring triggers of instances cancelled by ID", "lock_cancelled_runs", () => [[pendingTrigger], [today()]]],
  ["skip the runs of instances cancelled by ID", "skip_cancelled_runs", () => [[generator], [new Date()]]],
  [
    "edit triggers of a declaration in place",
    "declare_update_triggers",
    () => [
      project,
      JSON.stringify([{ id: pendingTrigger, partDay: today(), status: "registered", scheduledAt: new Date(Date.now() + 3_600_000), url: "http://127.0.0.1:9/x", method: "GET", headers: [], body: null, tags: [] }]),
      [today()],
    ],
  ],
  ["consume quota", "consume_quota", () => [project, new Date().toISOString().slice(0, 7), 1]],
  ["give back a quota unit", "refund_quota", () => [project, new Date().toISOString().slice(0, 7), 1]],
  ["declare candidates (tag with history)", "declare_candidate_triggers", () => [project, "billing"]],
  ["declare candidates (unknown tag)", "declare_candidate_triggers", () => [project, "nothing-here"]],
  ["bulk pending by key", "bulk_pending_triggers_by_key", () => [project, [pendingKey, historyKey]]],
  [
    "bulk cancel targets by tag",
    "bulk_resolve_cancels",
    () => [project, JSON.stringify([{ n: 0, by: "tag", uuid: null, value: "billing" }, { n: 1, by: "string", uuid: null, value: historyKey }])],
  ],
];

// Statements that name the rows they change by id and day (the scheduler's,
// the executor's as the queue job carries the day, /declare's and /bulk's):
// their cases above name today.
const DAY_NAMED = [
  "promote_due", "attempt_tags", "start_attempts", "mark_dispatched", "hold_attempts", "finish_attempts",
  "declare_cancel_triggers", "declare_update_triggers", "lock_cancelled_runs",
];
const byDay = [...periodic, ...perRequest].filter(([, name]) => DAY_NAMED.includes(name));

const prepared: Case[] = [
  ["project by key hash", "find_project_by_key_hash", () => ["0".repeat(64)]],
  ["consume quota", "consume_quota", () => [project, new Date().toISOString().slice(0, 7), 1]],
  ["give back a quota unit", "refund_quota", () => [project, new Date().toISOString().slice(0, 7), 1]],
];

/**
 * What the api's prepared-statement pool runs besides /schedule's plain
 * inserts: /schedule's edits, DELETE /cancel and the dashboard's cancel
 * (packages/db/src/cancel.ts), which PostgreSQL plans once for any values
 * after a few calls.
 */
const onPreparedPool = ([, name]: Case) =>
  [
    "find_trigger_by_id", "cancel_trigger", "cancel_generator", "find_pending_trigger_by_key", "find_latest_trigger_by_key", "lock_cancelled_runs", "skip_cancelled_runs",
    // /schedule's edits (by custom key or ID) run on that pool too
    "update_trigger_request", "cancel_pending_instance", "find_active_generator_by_key", "find_generator_by_id", "update_generator",
  ].includes(name);

const listTriggers = (f: { jobs?: boolean; status?: string | null; tag?: string | null; key?: string | null; after?: boolean }) => () => [
  project, f.jobs ?? true, f.status ?? null, true, null, f.tag ?? null, f.key ?? null,
  f.after ? new Date(Date.now() - 10 * 86_400_000) : null, f.after ? noId : null, 50,
];

/**
 * What the api's read pool runs, with generic plans
 * (services/api/src/deps.ts): the trigger pages (one recurring trigger's
 * instances too), the execution pages, the rows of a trigger page, a
 * trigger's detail, stats, usage and the overview.
 */
const onReadsPool = ([, name]: Case) => ["session_list_triggers", "session_list_instances", "session_list_executions", "session_load_triggers", "session_trigger_executions", "session_stats", "session_project", "session_overview_lateness", "session_overview_queue", "session_overview_held", "session_overview_upcoming", "session_overview_next"].includes(name);

const dashboard: Case[] = [
  ["trigger list, first page", "session_list_triggers", listTriggers({})],
  ["trigger list, a later page", "session_list_triggers", listTriggers({ after: true })],
  ["trigger list by status", "session_list_triggers", listTriggers({ status: "completed" })],
  ["trigger list by a rare status", "session_list_triggers", listTriggers({ status: "running" })],
  ["trigger list by a tag with history", "session_list_triggers", listTriggers({ tag: "billing" })],
  ["trigger list by a tag with no rows", "session_list_triggers", listTriggers({ tag: "nothing-here" })],
  ["trigger list by custom key", "session_list_triggers", listTriggers({ key: historyKey })],
  // one recurring trigger's instances: a page of them, not all INSTANCES
  // sorted, nor the project's rows filtered by the recurring trigger
  ["one recurring trigger's instances", "session_list_instances", () => [project, generator, null, null, null, null, null, 50]],
  ["one recurring trigger's instances by status, a later page", "session_list_instances", () => [project, generator, "completed", null, null, new Date(Date.now() - 10 * 86_400_000), noId, 50]],
  ["a recurring trigger without instances", "session_list_instances", () => [project, noId, null, null, null, null, null, 50]],
  ["executions list", "session_list_executions", () => [project, null, false, null, null, 50]],
  ["executions list, a later page", "session_list_executions", () => [project, null, false, new Date(Date.now() - 10 * 86_400_000), noId, 50]],
  ["dead letters", "session_list_executions", () => [project, null, true, null, null, 50]],
  ["executions of a trigger", "session_trigger_executions", () => [project, historyTrigger]],
  ["trigger detail", "session_load_triggers", () => [project, [historyTrigger, pendingTrigger], null]],
  ["a page of triggers by id and day", "session_load_triggers", () => [project, [historyTrigger, pendingTrigger], [historyDay, today()]]],
  ["find any trigger", "session_find_any_trigger", () => [project, historyTrigger]],
  ["replay", "session_replay", () => [project, historyTrigger, "replay"]],
  ["retry now", "session_retry_now", () => [project, historyTrigger]],
  ["stats, last hour", "session_stats", () => [project, new Date(Math.floor(Date.now() / 60_000) * 60_000 - 59 * 60_000), 60]],
  ["project and usage", "session_project", () => [project, new Date().toISOString().slice(0, 7)]],
  // The overview (GET /overview): lateness over the longest window, the
  // queue, held backlogs per tag, and what is due in the next hour.
  ["overview: lateness, last hour", "session_overview_lateness", () => [project, thisMinute(-59), 60]],
  ["overview: lateness, a day", "session_overview_lateness", () => [project, thisMinute(-1439), 1440]],
  ["overview: queue and running", "session_overview_queue", () => [project, 10_000]],
  ["overview: held per tag", "session_overview_held", () => [project, now(), 10_000, 50, 1000]],
  ["overview: due per slot, next hour", "session_overview_upcoming", () => [project, thisMinute(0), 5, 12, 10_000]],
  ["overview: due per slot, an hour a day ahead", "session_overview_upcoming", () => [project, thisMinute(24 * 60), 5, 12, 10_000]],
  ["overview: next due triggers", "session_overview_next", () => [project, thisMinute(0), 10]],
  // Dead letters in bulk (docs/api/dead-letters.md): an hour of yesterday's
  // history, by tag and without; each call is bounded by 10,000 rows.
  ["dead letters to replay, counted", "dead_letters_count", () => [project, "billing", ...yesterdayHour(), 10_000, true]],
  ["dead letters to discard, counted", "dead_letters_count", () => [project, null, ...yesterdayHour(), 10_000, false]],
  ["dead letters replayed in bulk", "dead_letters_replay", () => [project, "billing", ...yesterdayHour(), 10_000]],
  ["dead letters discarded in bulk", "dead_letters_discard", () => [project, "reports", ...yesterdayHour(), 10_000]],
];

function expectIndexServed(name: string, plan: Plan): void {
  expect(plan.scans, `${name} reads a large table whole`).toEqual([]);
  expect(plan.buffers, `${name} touched ${plan.buffers} buffers for ${plan.rows} rows`).toBeLessThanOrEqual(BUFFERS + BUFFERS_PER_ROW * plan.rows);
  expect(plan.ms).toBeLessThan(MILLIS);
}

describe(`statements on ${HISTORY * 2 + PENDING} rows stay index-served`, () => {
  for (const [group, cases] of [["periodic", periodic], ["per request", perRequest], ["dashboard", dashboard]] as const) {
    describe(group, () => {
      it.each(cases)("%s", async (_label, name, values) => {
        expectIndexServed(name, await explain(name, values()));
      });
    });
  }
  // The scheduler, the executor, /schedule and the cancels run these as prepared
  // statements (a plain pg pool, createPgRunner), which PostgreSQL plans once
  // for any values after a few executions; the api's dashboard reads keep a
  // generic plan from the first call: that plan must be index-served too.
  // The other statements go through Prisma's driver adapter, unnamed, and
  // are planned for their values on every call.
  describe("prepared statements, with a generic plan", () => {
    it.each([...periodic, ...prepared, ...perRequest.filter(onPreparedPool), ...dashboard.filter(onReadsPool)])("%s", async (_label, name, values) => {
      expectIndexServed(name, await explain(name, values(), true));
    });
  });
  // The unfiltered trigger lists merge one branch per status; a status
  // added to the type without its branch would drop from them.
  it.each(["session_list_triggers", "session_list_instances"])("%s has a branch for every trigger status", async (name) => {
    const { rows } = await client.query<{ status: string }>("SELECT unnest(enum_range(NULL::trigger_status))::text AS status");
    const branches = [...sql(name).matchAll(/t\.status = '(\w+)'/g)].map((m) => m[1]);
    expect(branches.sort()).toEqual(rows.map((r) => r.status).sort());
  });
  // With months of day partitions, a statement that probed every day for
  // each id would cost the firing path more with every day of history.
  describe("statements that name their rows' day read that day's partitions only", () => {
    it("covers every statement planned per call", () => {
      expect(PLANNED_PER_CALL.filter((name) => !byDay.some(([, n]) => n === name))).toEqual([]);
    });
    // They are planned for their values (PLANNED_PER_CALL, the executor's
    // customPlans, Prisma's unnamed statements): the plan leaves the other
    // days out, so they are not in what EXPLAIN ANALYZE shows.
    it.each(byDay)("%s", async (_label, name, values) => {
      const day = today().replaceAll("-", "");
      const planned = [...(await explain(name, values())).partitions];
      expect(planned.filter((p) => !p.endsWith(`_p${day}`)), `${name}: its plan reads other days`).toEqual([]);
      expect(planned.length, `${name}: its plan reads no partition of today`).toBeGreaterThan(0);
    });
  });
});
