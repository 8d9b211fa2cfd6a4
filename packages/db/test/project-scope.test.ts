// Every statement that changes a trigger or a recurring trigger by id also
// names its project: called with another project's id, it changes nothing,
// even when the caller's own project-scoped lookup were skipped by mistake.
import { afterAll, beforeAll, expect, it } from "vitest";
import { freshDatabase, type TestDatabase } from "../../../test/support/db.js";
import {
  cancelGenerator,
  cancelPendingInstance,
  cancelTrigger,
  createDb,
  createProject,
  type Db,
  insertGenerator,
  insertTrigger,
  type RequestFields,
  updateGenerator,
  updateTriggerRequest,
} from "../src/index.js";

let tdb: TestDatabase;
let db: Db;
let owner: string;
let stranger: string;

beforeAll(async () => {
  tdb = await freshDatabase();
  db = createDb(tdb.url, { max: 2 });
  owner = (await createProject(db, "owner", 1000)).projectId;
  stranger = (await createProject(db, "stranger", 1000)).projectId;
});
afterAll(async () => {
  await db?.$disconnect();
  await tdb?.drop();
});

const request: RequestFields = { title: null, url: "http://example.com/a", method: "POST", headers: [], body: null, tags: [], source: "schedule" };
const later = () => new Date(Date.now() + 3_600_000);
const statusOf = async (table: "triggers" | "generators", id: string) =>
  (await db.$queryRawUnsafe<Array<{ status: string; url: string }>>(`SELECT status::text AS status, url FROM ${table} WHERE id = $1::uuid`, id))[0];

it("one-shots: another project's id is neither edited nor cancelled; the owner's call still works", async () => {
  const id = await insertTrigger(db, { ...request, projectId: owner, generatorId: null, customKey: null, status: "registered", scheduledAt: later() });
  const edit = { ...request, url: "http://evil.example/", customKey: null, status: "registered" as const, scheduledAt: later() };
  expect(await updateTriggerRequest(db, stranger, id, edit)).toBeUndefined();
  expect(await cancelTrigger(db, stranger, id)).toBe(false);
  expect(await statusOf("triggers", id)).toEqual({ status: "registered", url: "http://example.com/a" });
  expect(await updateTriggerRequest(db, owner, id, { ...edit, url: "http://example.com/b" })).toBeDefined();
  expect(await cancelTrigger(db, owner, id)).toBe(true);
  expect(await statusOf("triggers", id)).toEqual({ status: "cancelled", url: "http://example.com/b" });
});

it("recurring triggers: another project's id is neither edited nor cancelled, nor is its pending instance", async () => {
  const gen = await insertGenerator(db, { ...request, projectId: owner, customKey: null, cronExpr: "0 * * * *", tz: "UTC" });
  const instance = await insertTrigger(db, { ...request, projectId: owner, generatorId: gen, customKey: null, status: "registered", scheduledAt: later() });
  await updateGenerator(db, stranger, gen, { ...request, url: "http://evil.example/", customKey: null, cronExpr: "* * * * *", tz: "UTC" });
  await cancelPendingInstance(db, stranger, gen);
  expect(await cancelGenerator(db, stranger, gen)).toBe(false);
  expect(await statusOf("generators", gen)).toEqual({ status: "active", url: "http://example.com/a" });
  expect((await statusOf("triggers", instance))?.status).toBe("registered");
  await cancelPendingInstance(db, owner, gen);
  expect((await statusOf("triggers", instance))?.status).toBe("cancelled");
  expect(await cancelGenerator(db, owner, gen)).toBe(true);
  expect((await statusOf("generators", gen))?.status).toBe("cancelled");
});
