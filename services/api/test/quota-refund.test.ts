// docs/quota.md: a /schedule call that took its quota unit and then stored
// nothing, because its write never reached PostgreSQL, gives the unit back.
// Here the edit's transaction goes to a port where nothing listens (a pool
// of its own), while the quota's statements reach the real PostgreSQL. A
// plain one-shot whose INSERT lost its answer answers 503 and gives its unit
// back once its row is known not to be stored.
import { createDb, createPgRunner, createProject, type Db, isDatabaseUnavailable, mayHaveCommitted, type PgRunner, projectUsage, sql } from "@ttr/db";
import { createLogger, freePort } from "@ttr/platform";
import { afterAll, beforeAll, expect, it } from "vitest";
import { freshDatabase, type TestDatabase } from "../../../test/support/db.js";
import { type ScheduleAsk, Scheduling } from "../src/schedule/call.js";

let tdb: TestDatabase;
let db: Db;
let away: PgRunner;
let pg: PgRunner;
let projectId: string;

beforeAll(async () => {
  tdb = await freshDatabase();
  db = createDb(tdb.url, { max: 2 });
  ({ projectId } = await createProject(db, "refund", 10));
  const url = new URL(tdb.url);
  url.hostname = "127.0.0.1";
  url.port = String(await freePort());
  away = createPgRunner(url.toString(), { max: 1 });
  pg = createPgRunner(tdb.url, { max: 2 });
});
afterAll(async () => {
  await pg?.end();
  await away?.end();
  await db?.$disconnect();
  await tdb?.drop();
});

const ask = (customKey: string): ScheduleAsk => ({
  url: "http://127.0.0.1:9/",
  method: "POST",
  headers: [],
  body: null,
  tags: [],
  title: null,
  customKey,
  scheduledAt: "now | add 1h",
  triggerId: undefined,
  runMissed: false,
  keepsKey: true,
});

const month = () => new Date().toISOString().slice(0, 7);
const used = async () => (await projectUsage(db, projectId, month()))?.usedThisMonth;

it("a write that could not reach PostgreSQL fails as unavailable and gives its unit back; one that is stored keeps it", async () => {
  const log = createLogger("api", "error");
  // the request pool, but with its transactions on the pool that reaches nothing
  const failing = new Scheduling({ db, pg: { ...pg, $transaction: away.$transaction }, log });
  const err = await failing.schedule(ask("k1"), async () => ({ id: projectId }), new Date()).then(() => null, (e: unknown) => e);
  expect(isDatabaseUnavailable(err)).toBe(true);
  expect(mayHaveCommitted(err)).toBe(false);
  expect(await used()).toBe(0);

  const working = new Scheduling({ db, pg, log });
  const answer = await working.schedule(ask("k1"), async () => ({ id: projectId }), new Date());
  expect(answer.monthQuotaRemaining).toBe(9);
  expect(await used()).toBe(1);
});

it("a plain one-shot whose INSERT lost its answer answers 503, and its unit comes back once its row is known not to be stored", async () => {
  const log = createLogger("api", "error");
  const reset = () => Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" });
  const insert = sql("insert_one_shots");
  const look = sql("existing_trigger_ids");
  // The first INSERT commits and loses its answer; the other never arrives.
  // Every look for the rows fails until the calls have answered 503.
  let inserts = 0;
  let answered = false;
  const flaky = {
    ...pg,
    $executeRawUnsafe: async (q: string, ...v: unknown[]) => {
      if (q !== insert) return pg.$executeRawUnsafe(q, ...v);
      if (inserts++ === 0) await pg.$executeRawUnsafe(q, ...v);
      throw reset();
    },
    $queryRawUnsafe: (q: string, ...v: unknown[]) => (q === look && !answered ? Promise.reject(reset()) : pg.$queryRawUnsafe(q, ...v)),
  } as unknown as PgRunner;
  const s = new Scheduling({ db, pg: flaky, log });
  const plain = { ...ask("unused"), customKey: undefined };
  const before = (await used()) ?? 0;
  const errs = await Promise.all([0, 1].map(async (i) => {
    await new Promise((r) => setTimeout(r, i * 100)); // one batch each
    return s.schedule(plain, async () => ({ id: projectId }), new Date()).then(() => null, (e: unknown) => e);
  }));
  for (const err of errs) expect(isDatabaseUnavailable(err) && mayHaveCommitted(err), String(err)).toBe(true);
  // the row that was stored can be removed (and its unit given back) at once; the other is looked for now
  answered = true;
  const deadline = Date.now() + 5000;
  while ((await used()) !== before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  expect(await used()).toBe(before);
  const [stored] = await db.$queryRawUnsafe<Array<{ n: number }>>("SELECT count(*)::int AS n FROM triggers WHERE project_id = $1::uuid AND custom_key IS NULL", projectId);
  expect(stored?.n).toBe(0);
}, 20_000);
