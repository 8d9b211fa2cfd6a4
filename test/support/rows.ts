// Reading stored rows in tests, straight from the tables.
import type { Db } from "@ttr/db";

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
