// withPgClient (retention passes, the CLI): a connection the server ends
// while it sits idle between two statements (PostgreSQL restarting, an
// administrator) fails the next statement; it never takes the process down
// with an unhandled 'error' event. A scheduler died that way when
// PostgreSQL stopped during a retention pass; another when it was killed
// while a pool transaction of the scheduler sat between two statements.
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { freshDatabase, type TestDatabase } from "../../../test/support/db.js";
import { createPgRunner, dbPing, withPgClient } from "../src/index.js";

let tdb: TestDatabase;
beforeAll(async () => {
  tdb = await freshDatabase();
});
afterAll(async () => {
  await tdb?.drop();
});

it("a connection ended by the server while idle fails the next statement, and nothing else", async () => {
  const err = await withPgClient(tdb.url, async (client) => {
    const { rows } = await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
    const admin = new pg.Client({ connectionString: tdb.url });
    await admin.connect();
    await admin.query("SELECT pg_terminate_backend($1)", [rows[0]!.pid]);
    await admin.end();
    // idle meanwhile: the server's goodbye arrives as an 'error' event
    await new Promise((r) => setTimeout(r, 300));
    return client.query("SELECT 1");
  }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(Error);
});

it("a pool connection ended by the server between two statements of a transaction fails the transaction, and nothing else", async () => {
  const runner = createPgRunner(tdb.url, { max: 2, applicationName: "ttr-test-ended" });
  try {
    const err = await runner
      .$transaction(async (tx) => {
        const rows = await tx.$queryRawUnsafe<Array<{ pid: number }>>("SELECT pg_backend_pid() AS pid");
        const pid = rows[0]!.pid;
        const admin = new pg.Client({ connectionString: tdb.url });
        await admin.connect();
        await admin.query("SELECT pg_terminate_backend($1)", [pid]);
        await admin.end();
        // awaiting something else meanwhile: the goodbye arrives as an 'error' event on a checked-out client
        await new Promise((r) => setTimeout(r, 300));
        return tx.$queryRawUnsafe("SELECT 1");
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    // the broken connection was not handed back: the pool still answers
    expect(await dbPing(runner)).toBe(true);
  } finally {
    await runner.end();
  }
});
