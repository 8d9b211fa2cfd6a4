// Shared by the retention tests: triggers (and executions) stored straight
// under a given day partition, and small reads of what a pass left.
import pg from "pg";
import { afterAll, beforeAll } from "vitest";
import { freshDatabase, type TestDatabase } from "../../../test/support/db.js";
import { clientRunner, createDb, createProject, ensurePartitions as ensure } from "../src/index.js";

export const DAY = 86_400_000;
/** The UTC day `offset` days from now, as YYYY-MM-DD. */
export const day = (offset: number) => new Date(Date.now() + offset * DAY).toISOString().slice(0, 10);
export const ago = (days: number) => new Date(Date.now() - days * DAY);
export const ensurePartitions = (c: pg.Client, now: Date, from?: string) => ensure(clientRunner(c), now, from);

export interface RetentionDatabase {
  tdb: TestDatabase;
  /** a connection of the test's own */
  client: pg.Client;
  projectId: string;
}

/**
 * For a test file: a fresh database with one project and the day partitions
 * of the last 60 days, and a connection to it; dropped after the file. Read
 * its fields inside tests (they are set in beforeAll).
 */
export function useRetentionDatabase(name: string): RetentionDatabase {
  const fx = {} as RetentionDatabase;
  beforeAll(async () => {
    fx.tdb = await freshDatabase();
    const db = createDb(fx.tdb.url, { max: 1 });
    fx.projectId = (await createProject(db, name, 1_000_000)).projectId;
    await db.$disconnect();
    fx.client = new pg.Client({ connectionString: fx.tdb.url });
    await fx.client.connect();
    await ensurePartitions(fx.client, new Date(), day(-60));
  });
  afterAll(async () => {
    await fx.client?.end();
    await fx.tdb?.drop();
  });
  return fx;
}

export interface StoredTrigger {
  partDay: string;
  status: string;
  updatedAt: Date;
  scheduledAt?: Date;
  customKey?: string;
  tags?: string[];
}

export interface StoredExecution {
  status: string;
  completedAt: Date | null;
  dispatchedAt?: Date;
}

/** Seeding and counting on the connection and project `of` gives when called (set in a beforeAll). */
export function retentionRows(of: () => { client: pg.Client; projectId: string }) {
  /** `count` triggers stored under `partDay`, each with one execution when `e` is given; returns their ids. */
  async function seed(count: number, t: StoredTrigger, e?: StoredExecution): Promise<string[]> {
    const { client, projectId } = of();
    await ensurePartitions(client, new Date(), t.partDay);
    const { rows } = await client.query<{ id: string }>(
      `INSERT INTO triggers (project_id, custom_key, status, url, method, headers, tags, scheduled_at, created_at, updated_at, part_day)
       SELECT $1::uuid, $2, $3::trigger_status, 'http://127.0.0.1:9/x', 'GET', '[]', $8::text[], $4, $5, $5, $6::date FROM generate_series(1, $7)
       RETURNING id::text`,
      [projectId, t.customKey ?? null, t.status, t.scheduledAt ?? t.updatedAt, t.updatedAt, t.partDay, count, t.tags ?? []],
    );
    const ids = rows.map((r) => r.id);
    if (e) {
      await client.query(
        `INSERT INTO executions (trigger_id, project_id, attempt_number, triggered_by, status, planned_at, completed_at, dispatched_at, part_day)
         SELECT id, $2::uuid, 1, 'scheduler', $3::execution_status, $4, $4, $5, $6::date FROM unnest($1::uuid[]) AS id`,
        [ids, projectId, e.status, e.completedAt ?? t.updatedAt, e.dispatchedAt ?? null, t.partDay],
      );
    }
    return ids;
  }

  const count = async (table: string, where = "true", values: unknown[] = []) =>
    Number((await of().client.query(`SELECT count(*) AS n FROM ${table} WHERE ${where}`, values)).rows[0].n);
  const exists = async (name: string) => (await of().client.query("SELECT to_regclass($1) AS r", [name])).rows[0].r !== null;

  return { seed, count, exists };
}
