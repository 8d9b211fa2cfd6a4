// Which errors of a real server count as storage unavailable (503, the
// client may try again) and which of them wrote nothing (the quota unit is
// given back): a read-only server (a standby that connections still reach
// after a failover), credentials the server refuses. A statement that is
// merely wrong stays a bug (500). The pg runner also closes a connection
// whose server is read-only, so that the next one may reach a new primary.
import { afterAll, beforeAll, expect, it } from "vitest";
import { freshDatabase, type TestDatabase } from "../../../test/support/db.js";
import { createDb, createPgRunner, type Db, dbPing, dbTakesWrites, isDatabaseUnavailable, mayHaveCommitted, type PgRunner } from "../src/index.js";

let tdb: TestDatabase;
let db: Db;
let runner: PgRunner;
beforeAll(async () => {
  tdb = await freshDatabase();
  db = createDb(tdb.url, { max: 1, applicationName: "ttr-test-unavailable" });
  runner = createPgRunner(tdb.url, { max: 1, applicationName: "ttr-test-unavailable" });
});
afterAll(async () => {
  await db?.$disconnect();
  await runner?.end();
  await tdb?.drop();
});

const pidOf = async () => (await runner.$queryRawUnsafe<Array<{ pid: number }>>("SELECT pg_backend_pid() AS pid"))[0]!.pid;

it("a write refused by a read-only server is unavailable and wrote nothing, through pg and through Prisma; the pg runner closes that connection", async () => {
  const before = await pidOf();
  const viaPg = await runner
    .$transaction(async (tx) => {
      await tx.$executeRawUnsafe("SET TRANSACTION READ ONLY");
      await tx.$executeRawUnsafe("CREATE TABLE never_made (a int)");
    })
    .catch((e: unknown) => e);
  const viaPrisma = await db
    .$transaction(async (tx) => {
      await tx.$executeRawUnsafe("SET TRANSACTION READ ONLY");
      await tx.$executeRawUnsafe("CREATE TABLE never_made (a int)");
    })
    .catch((e: unknown) => e);
  for (const err of [viaPg, viaPrisma]) {
    expect(String(err)).toContain("read-only transaction");
    expect(isDatabaseUnavailable(err)).toBe(true);
    expect(mayHaveCommitted(err)).toBe(false);
  }
  expect(await pidOf(), "a new connection after the read-only failure").not.toBe(before);
});

it("credentials the server refuses are unavailable and wrote nothing", async () => {
  const url = new URL(tdb.url);
  url.username = "no_such_role_for_ttr";
  const stranger = createPgRunner(url.toString(), { max: 1 });
  const err = await dbPing(stranger).catch((e: unknown) => e);
  await stranger.end();
  expect((err as { code?: string }).code).toMatch(/^28/);
  expect(isDatabaseUnavailable(err)).toBe(true);
  expect(mayHaveCommitted(err)).toBe(false);
});

it("a wrong statement is not unavailable, and keeps the pg runner's connection", async () => {
  const before = await pidOf();
  const err = await runner
    .$transaction(async (tx) => {
      await tx.$executeRawUnsafe("SELECT no_such_column FROM pg_class");
    })
    .catch((e: unknown) => e);
  expect((err as { code?: string }).code).toBe("42703");
  expect(isDatabaseUnavailable(err)).toBe(false);
  const again = await runner.$transaction(async (tx) => await tx.$queryRawUnsafe<Array<{ pid: number }>>("SELECT pg_backend_pid() AS pid"));
  expect(again[0]!.pid).toBe(before);
});

it("the readiness check fails on a read-only session and passes on a writable one", async () => {
  expect(await dbTakesWrites(runner)).toBe(true);
  const readOnly = createPgRunner(tdb.url, { max: 1, settings: { default_transaction_read_only: "on" } });
  await expect(dbTakesWrites(readOnly)).rejects.toThrow(/read-only/);
  await readOnly.end();
});
