// A database that looks like months of traffic, made in seconds with
// generate_series: finished one-shots with their executions spread over the
// past days (some tagged, some keyed, a few failed or dead-lettered), plus
// pending one-shots due over the next 30 days. Used by the index guard test
// to check that every statement stays index-served at that size.
//
// Each past day's pair of partitions is filled while it is still a plain
// table without indexes and attached afterwards (ATTACH builds the indexes
// in one sorted pass), which is several times faster than inserting through
// the parent's indexes.
import type pg from "pg";

export interface HistoryShape {
  /** projects the rows are dealt to in turn */
  projectIds: string[];
  /** finished triggers, each with one execution (skipped ones have none) */
  history: number;
  /** registered triggers due over the next 30 days */
  pending: number;
  /** history is spread over this many past UTC days (today excluded) */
  days?: number;
}

// Row i of the history belongs to day offset 1 + i % days; within its day
// it is created at a second spread by a multiplier prime to the day length.
// Params: $1 project ids, $2 first i, $3 last i, $4 step (days), $5 the day.
const AT = `($5::date::timestamp + make_interval(secs => ((i::bigint * 7919) % 86000)::int)) AT TIME ZONE 'UTC'`;

const HISTORY_TRIGGERS = (table: string) => `
INSERT INTO ${table} (id, project_id, custom_key, status, url, method, headers, tags, scheduled_at, attempts, created_at, updated_at, part_day)
SELECT md5('t' || i)::uuid,
       ($1::uuid[])[1 + i % cardinality($1::uuid[])],
       CASE WHEN i % 10 = 0 THEN 'key-' || i END,
       (CASE WHEN i % 50 = 1 THEN 'cancelled' WHEN i % 100 = 2 THEN 'skipped' ELSE 'completed' END)::trigger_status,
       'http://127.0.0.1:9/h/' || i, 'POST', '[["content-type","application/json"]]',
       CASE i % 3 WHEN 0 THEN ARRAY['billing'] WHEN 1 THEN ARRAY['reports'] ELSE '{}'::text[] END,
       at, 1, at, at + interval '1 second', $5::date
FROM generate_series($2::int, $3::int, $4::int) AS i, LATERAL (SELECT ${AT}) AS d(at)`;

const HISTORY_EXECUTIONS = (table: string) => `
INSERT INTO ${table} (id, trigger_id, project_id, attempt_number, triggered_by, status, planned_at, started_at, completed_at,
                      response_status, response_headers, response_size, error_message, is_dead_letter, timeout_seconds,
                      dispatched_at, created_at, part_day)
SELECT md5('e' || i)::uuid, md5('t' || i)::uuid,
       ($1::uuid[])[1 + i % cardinality($1::uuid[])],
       1, 'scheduler', (CASE WHEN i % 50 = 1 THEN 'cancelled' ELSE 'complete' END)::execution_status,
       at, at, at + interval '1 second',
       CASE WHEN i % 50 = 3 THEN NULL WHEN i % 50 IN (4, 5) THEN 500 ELSE 200 END,
       '{"content-type":"text/plain"}', 2,
       CASE WHEN i % 50 = 3 THEN 'connect ECONNREFUSED' END,
       i % 50 IN (3, 4), 30, at, at, $5::date
FROM generate_series($2::int, $3::int, $4::int) AS i, LATERAL (SELECT ${AT}) AS d(at)
WHERE i % 100 <> 2`;

const PENDING = `
INSERT INTO triggers (project_id, custom_key, status, url, method, headers, tags, scheduled_at, created_at, updated_at)
SELECT ($1::uuid[])[1 + i % cardinality($1::uuid[])],
       CASE WHEN i % 10 = 0 THEN 'pending-' || i END,
       'registered', 'http://127.0.0.1:9/p/' || i, 'POST', '[]',
       CASE WHEN i % 100 = 0 THEN ARRAY['billing'] WHEN i % 3 = 1 THEN ARRAY['hourly'] ELSE '{}'::text[] END,
       date_trunc('second', now()) + make_interval(secs => 3600 + ((i::bigint * 7919) % (30 * 86400))::int), now(), now()
FROM generate_series($2::int, $3::int) AS i`;

const STORAGE = "fillfactor = 90";

/** Fills the database behind `client` (migrated, with its projects made) and analyzes it. */
export async function seedHistory(client: pg.Client, shape: HistoryShape): Promise<void> {
  const days = shape.days ?? 25;
  const today = Date.parse(`${new Date().toISOString().slice(0, 10)}T00:00:00Z`);
  for (let k = 1; k <= days; k++) {
    const day = new Date(today - k * 86_400_000).toISOString().slice(0, 10);
    const next = new Date(today - (k - 1) * 86_400_000).toISOString().slice(0, 10);
    const suffix = day.replaceAll("-", "");
    // rows i with 1 + i % days = k
    const first = k - 1 === 0 ? days : k - 1;
    if (first > shape.history) continue;
    const values = [shape.projectIds, first, shape.history, days, day];
    const attached = (await client.query("SELECT to_regclass($1) IS NOT NULL AS yes", [`triggers_p${suffix}`])).rows[0].yes;
    if (attached) {
      await client.query(HISTORY_TRIGGERS(`triggers_p${suffix}`), values);
      await client.query(HISTORY_EXECUTIONS(`executions_p${suffix}`), values);
      continue;
    }
    await client.query(`CREATE TABLE triggers_p${suffix} (LIKE triggers INCLUDING DEFAULTS) WITH (${STORAGE})`);
    await client.query(`CREATE TABLE executions_p${suffix} (LIKE executions INCLUDING DEFAULTS) WITH (${STORAGE})`);
    await client.query(`CREATE TABLE trigger_tags_p${suffix} (LIKE trigger_tags)`);
    await client.query(HISTORY_TRIGGERS(`triggers_p${suffix}`), values);
    await client.query(HISTORY_EXECUTIONS(`executions_p${suffix}`), values);
    // a plain table has no row triggers yet: its tag rows are written here
    await client.query(`INSERT INTO trigger_tags_p${suffix} SELECT project_id, tag, created_at, id, part_day FROM triggers_p${suffix}, unnest(tags) AS tag`);
    for (const table of ["triggers", "executions", "trigger_tags"]) {
      await client.query(`ALTER TABLE ${table} ATTACH PARTITION ${table}_p${suffix} FOR VALUES FROM ('${day}') TO ('${next}')`);
    }
  }
  await client.query("SELECT ttr_ensure_partitions((now() AT TIME ZONE 'UTC')::date, (now() AT TIME ZONE 'UTC')::date + 7)");
  const chunk = 250_000;
  for (let from = 1; from <= shape.pending; from += chunk) {
    await client.query(PENDING, [shape.projectIds, from, Math.min(shape.pending, from + chunk - 1)]);
  }
  // The per-minute counts of the last two days' attempts, as the migration
  // that made attempt_minutes counted them (the services count as they go).
  await client.query(`
    SELECT ttr_count_completed_since(now() - interval '2 days')`);
  await client.query("ANALYZE triggers, executions, trigger_tags, attempt_minutes");
}
