// What a test of two transactions racing for the same rows needs: a database
// of its own with one project, the Prisma client to seed it, a plain pool
// for the code under test (named, so that PostgreSQL's activity view can
// tell its connections apart), and a connection of the test's own that
// plays the other transaction.
import pg from "pg";
import { createDb, createPgRunner, createProject, type Db, type PgRunner } from "@ttr/db";
import { freshDatabase, type TestDatabase } from "./db.js";

export interface LockRace {
  db: Db;
  runner: PgRunner;
  other: pg.Client;
  projectId: string;
  close(): Promise<void>;
}

export async function openLockRace(project: string, runner: { max: number; applicationName?: string }): Promise<LockRace> {
  const tdb: TestDatabase = await freshDatabase();
  const db = createDb(tdb.url, { max: 2 });
  const pool = createPgRunner(tdb.url, runner);
  const other = new pg.Client({ connectionString: tdb.url });
  await other.connect();
  const { projectId } = await createProject(db, project, 1000);
  return {
    db,
    runner: pool,
    other,
    projectId,
    async close() {
      await other.end();
      await pool.end();
      await db.$disconnect();
      await tdb.drop();
    },
  };
}
