// insertOneShots (insert_one_shots.sql) against a real PostgreSQL: many
// /schedule one-shots in one statement keep every field of each row.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, type TestDatabase } from "../../../test/support/db.js";
import { createDb, createProject, type Db, insertOneShots, type NewOneShot } from "../src/index.js";

let tdb: TestDatabase;
let db: Db;

beforeAll(async () => {
  tdb = await freshDatabase();
  db = createDb(tdb.url, { max: 2 });
});

afterAll(async () => {
  await db?.$disconnect();
  await tdb?.drop();
});

interface Stored {
  id: string;
  project_id: string;
  generator_id: string | null;
  custom_key: string | null;
  status: string;
  title: string | null;
  url: string;
  method: string;
  headers: unknown;
  body: Uint8Array | null;
  tags: string[];
  source: string;
  scheduled_at: Date;
}

const stored = (ids: string[]) =>
  db.$queryRawUnsafe<Stored[]>(
    `SELECT id::text, project_id::text, generator_id, custom_key, status::text, title, url, method, headers, body, tags, source::text, scheduled_at
     FROM triggers WHERE id = ANY ($1::uuid[]) ORDER BY array_position($1::uuid[], id)`,
    ids,
  );

describe("insertOneShots", () => {
  it("writes each row with its own fields: bytes, nulls, ordered headers, tags, status and time", async () => {
    const { projectId } = await createProject(db, "one-shots", 100);
    const rows: NewOneShot[] = [
      {
        id: randomUUID(), projectId, status: "registered", scheduledAt: new Date("2099-01-01T00:00:00.123Z"),
        request: { title: "Ünïcode title", url: "http://127.0.0.1:9/a?x=1", method: "POST", headers: [["x-b", "2"], ["X-A", "1"], ["x-b", "3"]], body: new Uint8Array([0, 255, 10, 92, 34]), tags: ["alpha", "β,γ", 'q"uote'], source: "schedule" },
      },
      {
        id: randomUUID(), projectId, status: "skipped", scheduledAt: new Date("2001-02-03T04:05:06Z"),
        request: { title: null, url: "http://127.0.0.1:9/b", method: "GET", headers: [], body: null, tags: [], source: "schedule" },
      },
    ];
    await insertOneShots(db, rows);
    const [a, b] = await stored(rows.map((r) => r.id));
    expect(a).toMatchObject({ id: rows[0]!.id, project_id: projectId, generator_id: null, custom_key: null, status: "registered", title: "Ünïcode title", url: "http://127.0.0.1:9/a?x=1", method: "POST", tags: ["alpha", "β,γ", 'q"uote'], source: "schedule" });
    expect(a!.headers).toEqual([["x-b", "2"], ["X-A", "1"], ["x-b", "3"]]);
    expect([...a!.body!]).toEqual([0, 255, 10, 92, 34]);
    expect(a!.scheduled_at.toISOString()).toBe("2099-01-01T00:00:00.123Z");
    expect(b).toMatchObject({ status: "skipped", title: null, method: "GET", headers: [], body: null, tags: [] });
    expect(b!.scheduled_at.toISOString()).toBe("2001-02-03T04:05:06.000Z");
  });

  it("is one statement: a row that cannot be written leaves none of its batch", async () => {
    const { projectId } = await createProject(db, "atomic", 100);
    const row = (id: string): NewOneShot => ({
      id, projectId, status: "registered", scheduledAt: new Date("2099-01-01T00:00:00Z"),
      request: { title: null, url: "http://127.0.0.1:9/", method: "POST", headers: [], body: null, tags: [], source: "schedule" },
    });
    const taken = randomUUID();
    await insertOneShots(db, [row(taken)]);
    const fresh = randomUUID();
    await expect(insertOneShots(db, [row(fresh), row(taken)])).rejects.toThrow();
    expect(await stored([fresh])).toEqual([]);
  });
});
