// A "large" database for the large-state scenario, written with set-based
// SQL (INSERT … SELECT … FROM generate_series, one statement per chunk, so
// progress can be logged): pending one-shots due over the next 30 days,
// completed one-shots with their one execution spread over the past 25 days
// (inside retention), and history 38 to 31 days old for a 30-day retention
// pass. Every day from the oldest row's to today has its partitions, as on a
// ttr that ran through those days.
// Rows are shaped as the services write them: a trigger and its execution
// share part_day (the UTC day the trigger was created), ids are UUIDv7 of
// the row's creation time, statuses and columns as promote_due,
// start_attempts and finish_attempts leave them. Mix: about 60% tagged (a
// few tags), 10% with a custom key, 15% titled, 80% POST with a JSON body;
// 2% of attempts failed with no retry left (dead letters): 1.5% an HTTP
// error status, 0.5% a network error or timeout.
import pg from "pg";
import { utcDay } from "./pg-io.mjs";

const DAY_S = 86_400;
/** history is created over the past 25 days, up to 10 minutes ago */
export const HISTORY_DAYS = 25;
/**
 * old history (retention's work) is created 38 to 31 days ago: just past a
 * 30-day cutoff, as a daily pass would find it after retention was switched
 * on (or lowered) a week ago
 */
export const OLD_FROM_DAYS = 38;
export const OLD_TO_DAYS = 31;
/** pending triggers are due between 6 hours and 30 days from now: none fires during a run */
const PENDING_FIRST_DUE_H = 6;

/** SQL for a UUIDv7 whose timestamp is `ts` (the layout of ttr_uuidv7(), which always uses the clock). */
const uuidv7At = (ts) => `encode(set_bit(set_bit(
    overlay(uuid_send(gen_random_uuid())
            PLACING substring(int8send((extract(epoch FROM ${ts}) * 1000)::bigint) FROM 3)
            FROM 1 FOR 6),
    52, 1), 53, 1), 'hex')::uuid`;

/**
 * One chunk of one set: rows i = $1 … $2-1 of $3, created evenly from $4
 * over $5 seconds, alternately in project $6 and $7. With $8 = k > 0, every
 * k-th row is a pending (registered) trigger due in the next 30 days without
 * an execution, the others completed with one; $8 = 1: all pending. $9 is the
 * custom keys' prefix. Returns {triggers, executions} written.
 */
const CHUNK_SQL = `
WITH base AS MATERIALIZED (
  SELECT i,
         CASE WHEN i % 2 = 0 THEN $6::uuid ELSE $7::uuid END AS project_id,
         $4::timestamptz + make_interval(secs => $5::float8 * i / $3::float8) AS created,
         random() AS r_tag, random() AS r_key, random() AS r_req, random() AS r_due,
         random() AS r_out, random() AS r_time, random() AS r_code,
         ($8::int > 0 AND i % $8::int = 0) AS pending
  FROM generate_series($1::bigint, $2::bigint - 1) AS i
), shaped AS MATERIALIZED (
  SELECT b.*,
         (b.created AT TIME ZONE 'UTC')::date AS part_day,
         ${uuidv7At("b.created")} AS trigger_id,
         CASE WHEN b.r_tag < 0.4 THEN '{}'::text[]
              WHEN b.r_tag < 0.6 THEN ARRAY['billing']
              WHEN b.r_tag < 0.8 THEN ARRAY['reminders']
              WHEN b.r_tag < 0.9 THEN ARRAY['sync', 'nightly']
              ELSE ARRAY['webhooks'] END AS tags,
         CASE WHEN b.pending
              THEN date_trunc('second', now() + make_interval(hours => ${PENDING_FIRST_DUE_H}) + b.r_due * make_interval(hours => ${30 * 24 - PENDING_FIRST_DUE_H}))
              ELSE least(date_trunc('second', b.created + make_interval(secs => floor(b.r_due * 3600))), date_trunc('second', now() - interval '5 minutes'))
         END AS scheduled_at,
         CASE WHEN b.r_out < 0.98 THEN 'ok' WHEN b.r_out < 0.995 THEN 'http' ELSE 'net' END AS outcome
  FROM base b
), timed AS MATERIALIZED (
  SELECT s.*,
         s.scheduled_at + make_interval(secs => (2 + floor(s.r_time * 40)) / 1000.0) AS dispatched_at,
         s.scheduled_at + make_interval(secs => (4 + floor(s.r_time * 60)) / 1000.0) AS started_at
  FROM shaped s
), done AS MATERIALIZED (
  SELECT t.*,
         t.started_at + CASE WHEN t.outcome = 'net' AND t.r_code < 0.5 THEN interval '30 seconds'
                             WHEN t.outcome = 'net' THEN interval '3 milliseconds'
                             ELSE make_interval(secs => (20 + floor(t.r_code * 300)) / 1000.0) END AS completed_at,
         CASE WHEN t.outcome = 'http' THEN (ARRAY[500, 502, 503, 404, 429, 400])[1 + floor(t.r_code * 6)::int]
              WHEN t.outcome = 'ok' THEN CASE WHEN t.r_code < 0.9 THEN 200 WHEN t.r_code < 0.97 THEN 201 ELSE 204 END
         END AS response_status
  FROM timed t
), trig AS (
  INSERT INTO triggers (id, project_id, custom_key, status, title, url, method, headers, body, tags, source,
                        scheduled_at, attempts, created_at, updated_at, part_day)
  SELECT d.trigger_id, d.project_id,
         CASE WHEN d.r_key < 0.1 THEN $9::text || d.i END,
         CASE WHEN d.pending THEN 'registered' ELSE 'completed' END::trigger_status,
         CASE WHEN d.r_req < 0.15 THEN 'Reminder #' || d.i END,
         'https://hooks.example.com/' || coalesce(d.tags[1], 'ping') || '/' || d.i,
         CASE WHEN d.r_req < 0.8 THEN 'POST' ELSE 'GET' END,
         CASE WHEN d.r_req < 0.8 THEN jsonb_build_array(jsonb_build_array('content-type', 'application/json'), jsonb_build_array('x-request-id', 'req-' || d.i))
              ELSE '[]'::jsonb END,
         CASE WHEN d.r_req < 0.8 THEN convert_to('{"n":' || d.i || ',"kind":"reminder"}', 'UTF8') END,
         d.tags,
         CASE WHEN d.r_key < 0.05 AND cardinality(d.tags) > 0 THEN 'item' ELSE 'schedule' END::request_source,
         d.scheduled_at,
         CASE WHEN d.pending THEN 0 ELSE 1 END,
         d.created,
         CASE WHEN d.pending THEN d.created ELSE d.completed_at END,
         d.part_day
  FROM done d
  RETURNING 1
), exec AS (
  INSERT INTO executions (id, trigger_id, project_id, attempt_number, triggered_by, status, planned_at, started_at,
                          completed_at, response_status, response_headers, response_body, response_size,
                          error_message, is_dead_letter, timeout_seconds, reap_after, dispatched_at, created_at, part_day)
  SELECT ${uuidv7At("d.dispatched_at")}, d.trigger_id, d.project_id, 1, 'scheduler', 'complete', d.scheduled_at, d.started_at,
         d.completed_at, d.response_status,
         CASE WHEN d.outcome <> 'net' THEN jsonb_build_object(
           'content-type', 'application/json',
           'content-length', CASE WHEN d.response_status = 204 THEN '0' WHEN d.outcome = 'ok' THEN '11' ELSE '32' END,
           'date', to_char(d.completed_at AT TIME ZONE 'UTC', 'Dy, DD Mon YYYY HH24:MI:SS "GMT"'),
           'connection', 'keep-alive') END,
         CASE WHEN d.response_status = 204 THEN '' WHEN d.outcome = 'ok' THEN '{"ok":true}' WHEN d.outcome = 'http' THEN '{"error":"upstream unavailable"}' END,
         CASE WHEN d.response_status = 204 THEN 0 WHEN d.outcome = 'ok' THEN 11 WHEN d.outcome = 'http' THEN 32 END,
         CASE WHEN d.outcome = 'net' AND d.r_code < 0.5 THEN 'Timeout after 30 s'
              WHEN d.outcome = 'net' THEN 'connect ECONNREFUSED 203.0.113.7:443' END,
         d.outcome <> 'ok', 30, d.started_at + interval '60 seconds', d.dispatched_at, d.dispatched_at, d.part_day
  FROM done d
  WHERE NOT d.pending
  RETURNING 1
)
SELECT (SELECT count(*) FROM trig)::int AS triggers, (SELECT count(*) FROM exec)::int AS executions`;


/**
 * Writes one set in chunks of `chunk` triggers.
 * @param {pg.Client} client
 * @param {{label: string, count: number, chunk: number, start: Date, spanS: number, projects: [string, string], pendingEvery: number, keyPrefix: string, log?: (m: string) => void}} set
 */
async function writeSet(client, set) {
  const started = Date.now();
  let triggers = 0;
  let executions = 0;
  for (let from = 0; from < set.count; from += set.chunk) {
    const to = Math.min(set.count, from + set.chunk);
    const { rows } = await client.query(CHUNK_SQL, [from, to, set.count, set.start, set.spanS, set.projects[0], set.projects[1], set.pendingEvery, set.keyPrefix]);
    triggers += rows[0].triggers;
    executions += rows[0].executions;
    const s = (Date.now() - started) / 1000;
    set.log?.(`seed ${set.label}: ${to.toLocaleString("en-US")}/${set.count.toLocaleString("en-US")} triggers (${s.toFixed(0)} s, ${Math.round((triggers + executions) / s).toLocaleString("en-US")} rows/s)`);
  }
  return { triggers, executions, seconds: (Date.now() - started) / 1000 };
}

/**
 * Seeds the large state into a migrated database: `pending` registered
 * one-shots, `history` completed ones with one execution each, `old`
 * completed ones `oldDaysAgo` days old (38 to 31; 1 in 1,000 of them still pending, which
 * a retention pass must move rather than drop), each set split evenly between
 * the two projects; then VACUUM (ANALYZE), as autovacuum would have done.
 * @param {string} url
 * @param {{projects: [string, string], pending: number, history: number, old: number, oldDaysAgo?: [number, number], log?: (m: string) => void}} opts
 * @returns {Promise<{historyS: number, pendingS: number, oldS: number, vacuumS: number, totalS: number, rows: number}>}
 */
export async function seedLargeState(url, { projects, pending, history, old, oldDaysAgo = [OLD_FROM_DAYS, OLD_TO_DAYS], log }) {
  const client = new pg.Client({ connectionString: url, application_name: "ttr-bench-seed" });
  await client.connect();
  const started = Date.now();
  try {
    // A scratch database of the run: commits need not wait for the disk.
    await client.query("SET synchronous_commit = off");
    await client.query("SET work_mem = '256MB'");
    await client.query("SET maintenance_work_mem = '512MB'");
    const now = Date.now();
    const historyStart = new Date(now - HISTORY_DAYS * DAY_S * 1000);
    const historySpanS = HISTORY_DAYS * DAY_S - 600;
    const [oldFrom, oldTo] = oldDaysAgo;
    const oldStart = new Date(now - oldFrom * DAY_S * 1000);
    const oldSpanS = (oldFrom - oldTo) * DAY_S;
    // Partitions for every day from the oldest row's to today: a pass finds
    // no day missing after its cutoff and makes none (DDL that every
    // connection would pay for by planning its statements again).
    const firstDay = old > 0 ? oldStart : historyStart;
    await client.query("SELECT ttr_ensure_partitions($1::date, $2::date)", [utcDay(firstDay.getTime()), utcDay(now)]);

    const common = { projects, log };
    const h = await writeSet(client, { ...common, label: "history", count: history, chunk: 500_000, start: historyStart, spanS: historySpanS, pendingEvery: 0, keyPrefix: "order-" });
    const p = await writeSet(client, { ...common, label: "pending", count: pending, chunk: 1_000_000, start: historyStart, spanS: historySpanS, pendingEvery: 1, keyPrefix: "pending-" });
    const o = old > 0 ? await writeSet(client, { ...common, label: "old history", count: old, chunk: 500_000, start: oldStart, spanS: oldSpanS, pendingEvery: 1000, keyPrefix: "old-" }) : { triggers: 0, executions: 0, seconds: 0 };

    // The per-minute counts the services would have written as these
    // attempts ended (GET /stats and the overview read them): the last two
    // days', counted as the migration that made the table counts them.
    // (A database at a schema before the counts, as upgrade.mjs seeds, has none.)
    const counts = (await client.query("SELECT to_regproc('ttr_count_completed_since') IS NOT NULL AS yes")).rows[0].yes;
    if (counts) {
      log?.("seed: per-minute counts of the last two days");
      await client.query("SELECT ttr_count_completed_since(now() - interval '2 days')");
    }
    const v0 = Date.now();
    log?.("seed: VACUUM (ANALYZE) triggers, executions, trigger_tags");
    await client.query(`VACUUM (ANALYZE) triggers, executions, trigger_tags${counts ? ", attempt_minutes" : ""}`);
    await client.query("ANALYZE projects, api_keys, users, sessions, tag_policies, generators");
    const vacuumS = (Date.now() - v0) / 1000;
    return {
      historyS: h.seconds,
      pendingS: p.seconds,
      oldS: o.seconds,
      vacuumS,
      totalS: (Date.now() - started) / 1000,
      rows: h.triggers + h.executions + p.triggers + o.triggers + o.executions,
    };
  } finally {
    await client.end();
  }
}

/**
 * Tag policies as a project using the dashboard would have: timeouts and
 * retries, no throughput or concurrency limit (the bench's own triggers are
 * untagged, and nothing here may hold them back).
 * @param {pg.Pool} db
 */
export async function seedPolicies(db, projectId) {
  await db.query(
    `INSERT INTO tag_policies (id, project_id, tag, request_timeout_seconds, retry_strategy, retry_initial_delay_seconds, retry_max_attempts, updated_at)
     VALUES (gen_random_uuid(), $1::uuid, 'billing', 10, 'exponential', 5, 5, now()),
            (gen_random_uuid(), $1::uuid, 'reminders', 20, 'fixed', 60, 3, now()),
            (gen_random_uuid(), $1::uuid, 'webhooks', 5, 'none', NULL, NULL, now())`,
    [projectId],
  );
}

/**
 * What the API-key operations act on, the same in both states: `byTag`
 * pending triggers tagged `cancel-me`, and `n` pending triggers with custom
 * keys `op-key-<i>` and `n` without, all due in a day; and a recurring
 * trigger with INSTANCES completed instances, for the dashboard's reads.
 * @param {pg.Pool} db
 * @returns {Promise<{ids: string[], keys: string[], generator: string}>}
 */
export async function seedOpTargets(db, projectId, { n, byTag }) {
  const insert = `
    INSERT INTO triggers (project_id, custom_key, status, url, method, headers, tags, scheduled_at)
    SELECT $1::uuid, $2::text || i, 'registered', 'https://hooks.example.com/op/' || i, 'POST', '[]'::jsonb, $3::text[],
           date_trunc('second', now() + interval '1 day')
    FROM generate_series(1, $4::int) AS i
    RETURNING id::text AS id, custom_key AS key`;
  await db.query(insert, [projectId, null, ["cancel-me"], byTag]);
  const keyed = await db.query(insert, [projectId, "op-key-", [], n]);
  const plain = await db.query(insert, [projectId, null, [], n]);
  // A recurring trigger with INSTANCES completed instances, one every 5 s
  // before now, all in today's partition (the empty database has no
  // earlier one), for the dashboard's page of one recurring trigger.
  const generator = (
    await db.query(
      `INSERT INTO generators (id, project_id, status, cron_expr, tz, url, method, headers, tags, created_at, updated_at)
       VALUES (gen_random_uuid(), $1, 'active', '*/5 * * * * *', 'UTC', 'https://hooks.example.com/cron', 'GET', '[]', '{}', now() - interval '1 hour', now())
       RETURNING id::text`,
      [projectId],
    )
  ).rows[0].id;
  await db.query(
    `INSERT INTO triggers (project_id, generator_id, status, url, method, headers, tags, scheduled_at, attempts, created_at, updated_at, part_day)
     SELECT $1, $2, 'completed', 'https://hooks.example.com/cron', 'GET', '[]', '{}', at, 1, at, at, (now() AT TIME ZONE 'UTC')::date
     FROM (SELECT date_trunc('second', now()) - make_interval(secs => 5 * i) AS at FROM generate_series(1, $3::int) AS i) s`,
    [projectId, generator, INSTANCES],
  );
  return { ids: plain.rows.map((r) => r.id), keys: keyed.rows.map((r) => r.key), generator };
}

/** completed instances of the recurring trigger seedOpTargets makes */
export const INSTANCES = 600;
