// consumeQuota (consume_quota.sql) against a real PostgreSQL: units taken in
// groups count exactly, and a group that does not fit takes what is left,
// one unit at a time (docs/quota.md).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, type TestDatabase } from "../../../test/support/db.js";
import { consumeQuota, createDb, createProject, type Db } from "../src/index.js";

let tdb: TestDatabase;
let db: Db;

beforeAll(async () => {
  tdb = await freshDatabase();
  db = createDb(tdb.url, { max: 4 });
});

afterAll(async () => {
  await db?.$disconnect();
  await tdb?.drop();
});

describe("consumeQuota", () => {
  it("answers the units left after each unit of a group, in order, and never goes past the quota", async () => {
    const { projectId } = await createProject(db, "quota", 10);
    expect(await consumeQuota(db, projectId, "2026-11", 3)).toEqual([9, 8, 7]);
    expect(await consumeQuota(db, projectId, "2026-11")).toEqual([6]);
    // 6 left: a group of 8 takes 6, one by one, and the last two find none.
    expect(await consumeQuota(db, projectId, "2026-11", 8)).toEqual([5, 4, 3, 2, 1, 0, null, null]);
    expect(await consumeQuota(db, projectId, "2026-11", 2)).toEqual([null, null]);
    // Another month has its own count; a first group larger than the quota.
    expect(await consumeQuota(db, projectId, "2026-12", 12)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0, null, null]);
  });

  it("counts exactly when groups race: every remaining value once", async () => {
    const { projectId } = await createProject(db, "race", 100);
    const groups = await Promise.all([7, 13, 25, 40, 30].map((n) => consumeQuota(db, projectId, "2026-11", n)));
    const values = groups.flat();
    expect(values.filter((v) => v === null)).toHaveLength(15);
    expect(values.filter((v) => v !== null).sort((a, b) => (a as number) - (b as number))).toEqual(Array.from({ length: 100 }, (_, i) => i));
  });

  it("a project with quota 0 gets nothing", async () => {
    const { projectId } = await createProject(db, "none", 0);
    expect(await consumeQuota(db, projectId, "2026-11", 2)).toEqual([null, null]);
  });
});
