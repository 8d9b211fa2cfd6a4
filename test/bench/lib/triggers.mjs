// Writing the bench's load straight into PostgreSQL, so that the api is not
// the bottleneck of the firing scenarios: a project, one-shot triggers in
// `unnest` batches, tag policies.
import pg from "pg";
import { createDb, createProject } from "@ttr/db";

/** Trigger n's id: monotonic in n, so (scheduled_at, id) order is n order among triggers due in the same second. */
export function triggerId(n) {
  return `00000000-0000-4000-8000-${n.toString(16).padStart(12, "0")}`;
}

/** A project with an API key and a quota that never runs out during a bench. */
export async function benchProject(url) {
  const db = createDb(url, { max: 1, applicationName: "ttr-bench" });
  try {
    return await createProject(db, "bench", 1_000_000_000);
  } finally {
    await db.$disconnect();
  }
}

export function pool(url, max = 4) {
  return new pg.Pool({ connectionString: url, max, application_name: "ttr-bench" });
}

const INSERT = `
INSERT INTO triggers (id, project_id, status, url, method, headers, tags, source, scheduled_at, attempts, created_at, updated_at)
SELECT id, $1::uuid, 'registered', url, 'GET', '[]'::jsonb, $2::text[], 'schedule', to_timestamp(at), 0, now(), now()
FROM unnest($3::uuid[], $4::text[], $5::float8[]) AS x(id, url, at)`;

/**
 * Inserts triggers `from` … `from + count - 1`, trigger n due at `dueAt(n)`
 * (epoch ms, a whole second) and sent to `<sinkBase>/t/<n>`.
 * @param {pg.Pool} db
 * idBase: added to n for the trigger ids (the URL keeps n), for a second set beside the first
 * query: if given, trigger n's URL ends with `?<query(n)>` (the sink reads only n)
 * ns: trigger numbers in any order instead of `from` and `count`; their ids
 *   are then `idBase`, `idBase + 1` … in that order, as ttr's ids follow the
 *   order rows are written in
 */
export async function insertTriggers(db, projectId, { from = 0, count, sinkBase, dueAt, tags = [], batch = 5000, idBase = 0, query = null, ns = null }) {
  const list = ns ?? Array.from({ length: count }, (_, i) => from + i);
  for (let start = 0; start < list.length; start += batch) {
    const ids = [];
    const urls = [];
    const ats = [];
    for (let i = start; i < Math.min(list.length, start + batch); i++) {
      const n = list[i];
      ids.push(triggerId(ns ? idBase + i : idBase + n));
      urls.push(query ? `${sinkBase}/t/${n}?${query(n)}` : `${sinkBase}/t/${n}`);
      ats.push(dueAt(n) / 1000);
    }
    await db.query(INSERT, [projectId, tags, ids, urls, ats]);
  }
}

/** A tag policy row, as /tag-policies would store it. */
export async function insertPolicy(db, projectId, tag, { throughput = null, maxConcurrent = null } = {}) {
  await db.query(
    `INSERT INTO tag_policies (id, project_id, tag, throughput, max_concurrent, updated_at)
     VALUES (gen_random_uuid(), $1::uuid, $2, $3::jsonb, $4, now())`,
    [projectId, tag, throughput === null ? null : JSON.stringify(throughput), maxConcurrent],
  );
}
