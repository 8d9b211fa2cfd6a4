// Reading stored rows in tests, straight from the tables.
import type { Db, ExecutionRow } from "@ttr/db";

export interface StoredTrigger {
  id: string;
  status: string;
  customKey: string | null;
  generatorId: string | null;
  title: string | null;
  url: string;
  method: string;
  headers: Array<[string, string]>;
  body: Buffer | null;
  tags: string[];
  scheduledAt: Date;
}

const TRIGGER_COLUMNS = `id::text, status::text, custom_key AS "customKey", generator_id::text AS "generatorId", title, url, method,
  headers, body, tags, scheduled_at AS "scheduledAt"`;

function normalize(row: StoredTrigger): StoredTrigger {
  return { ...row, body: row.body === null ? null : Buffer.from(row.body) };
}

export async function triggerById(db: Db, id: string): Promise<StoredTrigger | undefined> {
  const rows = await db.$queryRawUnsafe<StoredTrigger[]>(`SELECT ${TRIGGER_COLUMNS} FROM triggers WHERE id = $1::uuid`, id);
  return rows[0] && normalize(rows[0]);
}

export async function instancesOf(db: Db, generatorId: string): Promise<StoredTrigger[]> {
  const rows = await db.$queryRawUnsafe<StoredTrigger[]>(
    `SELECT ${TRIGGER_COLUMNS} FROM triggers WHERE generator_id = $1::uuid ORDER BY created_at`,
    generatorId,
  );
  return rows.map(normalize);
}

export async function generatorById(db: Db, id: string) {
  const rows = await db.$queryRawUnsafe<Array<{ id: string; status: string; customKey: string | null; cronExpr: string; tz: string; url: string }>>(
    `SELECT id::text, status::text, custom_key AS "customKey", cron_expr AS "cronExpr", tz, url FROM generators WHERE id = $1::uuid`,
    id,
  );
  return rows[0];
}

export async function setTriggerStatus(db: Db, id: string, status: string): Promise<void> {
  await db.$executeRawUnsafe(`UPDATE triggers SET status = $2::trigger_status WHERE id = $1::uuid`, id, status);
}

/** An execution as the dashboard returns it (a started one as started), plus the timeout fixed at its start. */
export type StoredExecution = Omit<ExecutionRow, "triggerId" | "createdAt"> & { timeoutSeconds: number | null };

export async function executionsOf(db: Db, triggerId: string): Promise<StoredExecution[]> {
  return db.$queryRawUnsafe<StoredExecution[]>(
    `SELECT e.id::text, e.attempt_number AS "attemptNumber", e.triggered_by::text AS "triggeredBy",
            CASE WHEN t.id IS NOT NULL THEN 'started' ELSE e.status::text END AS status,
            e.planned_at AS "plannedAt", COALESCE(e.started_at, t.attempt_started_at) AS "startedAt", e.completed_at AS "completedAt",
            e.response_status AS "responseStatus", e.response_headers AS "responseHeaders", e.response_body AS "responseBody",
            e.response_size AS "responseSize", e.error_message AS "errorMessage", e.is_dead_letter AS "isDeadLetter",
            COALESCE(e.timeout_seconds, t.attempt_timeout_seconds) AS "timeoutSeconds"
     FROM executions e
     -- a started attempt is stored as planned while its trigger runs it (docs/storage.md)
     LEFT JOIN triggers t ON e.status = 'planned' AND t.id = e.trigger_id AND t.part_day = e.part_day
                         AND t.status = 'running' AND t.attempts = e.attempt_number
     WHERE e.trigger_id = $1::uuid ORDER BY e.attempt_number`,
    triggerId,
  );
}

/** Polls until `check` returns a value (not undefined), or fails after `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 10_000, what = "condition"): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Waits until the trigger's newest execution is complete and returns all of them. */
export function settled(db: Db, triggerId: string, attempts = 1, timeoutMs = 10_000): Promise<StoredExecution[]> {
  return eventually(
    async () => {
      const rows = await executionsOf(db, triggerId);
      return rows.length >= attempts && rows.slice(0, attempts).every((r) => r.status === "complete") ? rows : undefined;
    },
    timeoutMs,
    `execution ${attempts} of ${triggerId} to complete`,
  );
}

export async function insertPolicy(db: Db, projectId: string, tag: string, fields: Record<string, unknown>): Promise<void> {
  const columns = Object.keys(fields);
  await db.$executeRawUnsafe(
    `INSERT INTO tag_policies (id, project_id, tag, ${columns.join(", ")}, updated_at)
     VALUES (gen_random_uuid(), $1::uuid, $2, ${columns.map((c, i) => (c === "throughput" ? `$${i + 3}::jsonb` : c.startsWith("retry_strategy") ? `$${i + 3}::retry_strategy` : c === "retry_on" ? `$${i + 3}::retry_on` : `$${i + 3}`)).join(", ")}, now())`,
    projectId,
    tag,
    ...Object.values(fields),
  );
}

/**
 * A trigger promoted and its attempt dispatched, as the scheduler leaves
 * them (for tests that put queue jobs in by hand): a GET of `url`, stored
 * `daysAhead` days after today. Returns its ids and day.
 */
export async function dispatchedAttempt(db: Db, projectId: string, url: string, daysAhead = 0): Promise<{ triggerId: string; executionId: string; partDay: string }> {
  const [row] = await db.$queryRawUnsafe<Array<{ triggerId: string; executionId: string; partDay: string }>>(
    `WITH t AS (
       INSERT INTO triggers (project_id, status, url, method, headers, tags, scheduled_at, attempts, part_day)
       VALUES ($1::uuid, 'queued', $2, 'GET', '[]', '{}', date_trunc('second', now()), 1, (now() AT TIME ZONE 'UTC')::date + $3::int)
       RETURNING id, project_id, part_day, scheduled_at
     ), e AS (
       INSERT INTO executions (trigger_id, project_id, attempt_number, triggered_by, status, planned_at, dispatched_at, part_day)
       SELECT id, project_id, 1, 'scheduler', 'planned', scheduled_at, now(), part_day FROM t
       RETURNING id, trigger_id, part_day
     )
     SELECT trigger_id::text AS "triggerId", id::text AS "executionId", part_day::text AS "partDay" FROM e`,
    projectId,
    url,
    daysAhead,
  );
  if (!row) throw new Error("no dispatched attempt was stored");
  return row;
}
