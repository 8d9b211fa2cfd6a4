// withPgClient (retention passes, the CLI): a connection the server ends
// while it sits idle between two statements (PostgreSQL restarting, an
// administrator) fails the next statement; it never takes the process down
// with an unhandled 'error' event. A scheduler died that way when
// PostgreSQL stopped during a retention pass.
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { freshDatabase, type TestDatabase } from "../../../test/support/db.js";
import { withPgClient } from "../src/index.js";

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
