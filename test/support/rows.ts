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

/** An execution as the dashboard returns it, plus the timeout fixed at its start. */
export type StoredExecution = Omit<ExecutionRow, "triggerId" | "createdAt"> & { timeoutSeconds: number | null };

export async function executionsOf(db: Db, triggerId: string): Promise<StoredExecution[]> {
  return db.$queryRawUnsafe<StoredExecution[]>(
    `SELECT id::text, attempt_number AS "attemptNumber", triggered_by::text AS "triggeredBy", status::text AS status,
            planned_at AS "plannedAt", started_at AS "startedAt", completed_at AS "completedAt",
            response_status AS "responseStatus", response_headers AS "responseHeaders", response_body AS "responseBody",
            response_size AS "responseSize", error_message AS "errorMessage", is_dead_letter AS "isDeadLetter",
            timeout_seconds AS "timeoutSeconds"
     FROM executions WHERE trigger_id = $1::uuid ORDER BY attempt_number`,
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
