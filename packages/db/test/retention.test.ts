// Retention (retention.ts) against a real PostgreSQL: old day partitions go
// whole, the rows that must stay are moved out first, and nothing brings a
// row back while it may be removed.
import pg from "pg";
import { describe, expect, it } from "vitest";
import { clientRunner, createDb, detachDays, ensurePartitions as ensure, PARTITIONS_CHANNEL, partitionBounds, prune, query, RETENTION_LOCK_KEY, withPgClient } from "../src/index.js";
import { sql } from "../src/sql.js";
import { ago, DAY, day, ensurePartitions, retentionRows, useRetentionDatabase } from "./retention-support.js";

const fx = useRetentionDatabase("retention");

const { seed, count, exists } = retentionRows(() => fx);

describe("trigger_tags follows triggers", () => {
  const tagsOf = async (id: string) =>
    (await fx.client.query("SELECT tag, part_day::text AS d FROM trigger_tags WHERE trigger_id = $1::uuid ORDER BY tag", [id])).rows;

  it("gets a row per distinct tag on insert, new rows when the tags change, none left on delete", async () => {
    const [id] = await seed(1, { partDay: day(0), status: "registered", updatedAt: new Date(), tags: ["b", "a", "b"] });
    expect(await tagsOf(id!)).toEqual([{ tag: "a", d: day(0) }, { tag: "b", d: day(0) }]);
    await fx.client.query("UPDATE triggers SET status = 'queued' WHERE id = $1::uuid", [id]);
    expect(await tagsOf(id!)).toHaveLength(2);
    await fx.client.query("UPDATE triggers SET tags = '{c}' WHERE id = $1::uuid", [id]);
    expect(await tagsOf(id!)).toEqual([{ tag: "c", d: day(0) }]);
    await fx.client.query("UPDATE triggers SET tags = '{}' WHERE id = $1::uuid", [id]);
    expect(await tagsOf(id!)).toEqual([]);
    await fx.client.query("UPDATE triggers SET tags = '{d}' WHERE id = $1::uuid", [id]);
    await fx.client.query("DELETE FROM triggers WHERE id = $1::uuid", [id]);
    expect(await tagsOf(id!)).toEqual([]);
  });

  it("writes nothing for a trigger without tags", async () => {
    const [id] = await seed(1, { partDay: day(0), status: "registered", updatedAt: new Date() });
    expect(await tagsOf(id!)).toEqual([]);
  });
});

describe("prune", () => {
  it("drops the old day's partitions, keeping (and moving) what must stay", async () => {
    const old = day(-40);
    const done = await seed(50, { partDay: old, status: "completed", updatedAt: ago(40) }, { status: "complete", completedAt: ago(40) });
    await seed(3, { partDay: old, status: "skipped", updatedAt: ago(40), customKey: "freed" });
    const [pending] = await seed(1, { partDay: old, status: "registered", updatedAt: ago(40), scheduledAt: new Date(Date.now() + 10 * DAY) });
    const [recent] = await seed(1, { partDay: old, status: "completed", updatedAt: ago(5) }, { status: "complete", completedAt: ago(35) });
    await fx.client.query(
      `INSERT INTO executions (trigger_id, project_id, attempt_number, triggered_by, status, planned_at, completed_at, part_day)
       VALUES ($1::uuid, $2::uuid, 2, 'replay', 'complete', $3, $3, $4::date)`,
      [recent, fx.projectId, ago(5), old],
    );
    const [inQueue] = await seed(1, { partDay: old, status: "queued", updatedAt: ago(40) }, { status: "planned", completedAt: null, dispatchedAt: ago(40) });
    // a younger day is left alone
    await seed(4, { partDay: day(-10), status: "completed", updatedAt: ago(10) }, { status: "complete", completedAt: ago(10) });

    const said: Array<[string, Record<string, unknown> | undefined]> = [];
    const r = await prune(fx.tdb.url, { olderThanDays: 30, log: (msg, meta) => said.push([msg, meta]) });
    expect(r).toMatchObject({ triggers: 53, executions: 51, moved: 3, deferred: 0 });
    // the pass says how long each of its steps took, in order
    const steps = said.find(([msg]) => msg === "retention pass steps")?.[1] ?? {};
    expect(Object.keys(steps)).toEqual(["prepare", "settle", "move", "detach", "drop"]);
    for (const ms of Object.values(steps)) expect(ms).toBeGreaterThanOrEqual(0);
    expect(r.partitions).toBeGreaterThanOrEqual(1);
    expect(await exists(`triggers_p${old.replaceAll("-", "")}`)).toBe(false);
    expect(await exists(`executions_p${old.replaceAll("-", "")}`)).toBe(false);
    expect(await count("triggers", "id = ANY($1::uuid[])", [done])).toBe(0);
    expect(await count("triggers", "custom_key = 'freed'")).toBe(0);
    // the pending trigger and the one in the queue now live under today; the
    // recently replayed one under the day of its last change, with its recent
    // execution (the old one is gone)
    const moved = async (id: string) => (await fx.client.query("SELECT part_day::text AS d FROM triggers WHERE id = $1::uuid", [id])).rows[0]?.d;
    expect(await moved(pending!)).toBe(day(0));
    expect(await moved(inQueue!)).toBe(day(0));
    expect(await moved(recent!)).toBe(day(-5));
    expect((await fx.client.query("SELECT attempt_number, part_day::text AS d FROM executions WHERE trigger_id = $1::uuid", [recent])).rows).toEqual([{ attempt_number: 2, d: day(-5) }]);
    expect(await count("executions", "trigger_id = $1::uuid AND part_day = $2::date", [inQueue, day(0)])).toBe(1);
    expect(await count("triggers", "part_day = $1::date", [day(-10)])).toBe(4);

    said.length = 0;
    expect(await prune(fx.tdb.url, { olderThanDays: 30, log: (msg, meta) => said.push([msg, meta]) })).toMatchObject({ triggers: 0, executions: 0, partitions: 0 });
    expect(said.map(([msg]) => msg)).not.toContain("retention pass steps");
  });

  it("moves a survivor's tag rows with it and drops the day's tag rows with the day", async () => {
    const d = day(-42);
    const gone = await seed(3, { partDay: d, status: "completed", updatedAt: ago(42), tags: ["billing"] });
    const [stays] = await seed(1, { partDay: d, status: "registered", updatedAt: ago(42), scheduledAt: new Date(Date.now() + DAY), tags: ["billing", "eu"] });
    expect(await count("trigger_tags", "part_day = $1::date", [d])).toBe(5);
    expect(await prune(fx.tdb.url, { olderThanDays: 30 })).toMatchObject({ triggers: 3, moved: 1 });
    expect(await exists(`trigger_tags_p${d.replaceAll("-", "")}`)).toBe(false);
    expect(await count("trigger_tags", "trigger_id = ANY($1::uuid[])", [gone])).toBe(0);
    const tagRows = await fx.client.query("SELECT tag, part_day::text AS d FROM trigger_tags WHERE trigger_id = $1::uuid ORDER BY tag", [stays]);
    expect(tagRows.rows).toEqual([{ tag: "billing", d: day(0) }, { tag: "eu", d: day(0) }]);
  });

  it("keeps everything with 0 days", async () => {
    await seed(2, { partDay: day(-50), status: "completed", updatedAt: ago(50) });
    expect(await prune(fx.tdb.url, { olderThanDays: 0 })).toMatchObject({ triggers: 0, executions: 0, partitions: 0 });
    expect(await count("triggers", "part_day = $1::date", [day(-50)])).toBe(2);
  });

  it("removes per-minute counts older than two days on every pass, even with 0 days", async () => {
    const minute = (msAgo: number) => new Date(Math.floor((Date.now() - msAgo) / 60_000) * 60_000);
    for (const at of [minute(3 * DAY), minute(2 * DAY + 120_000), minute(2 * DAY - 120_000), minute(60_000)]) {
      await fx.client.query("INSERT INTO attempt_minutes (project_id, minute, shard, success) VALUES ($1::uuid, $2, 0, 1)", [fx.projectId, at]);
    }
    await prune(fx.tdb.url, { olderThanDays: 0 });
    const kept = (await fx.client.query<{ minute: Date }>("SELECT minute FROM attempt_minutes WHERE project_id = $1::uuid ORDER BY minute", [fx.projectId])).rows;
    expect(kept.map((r) => r.minute.getTime())).toEqual([minute(2 * DAY - 120_000).getTime(), minute(60_000).getTime()]);
  });

  it("leaves a partition whose rows are busy for the next pass", async () => {
    const d = day(-45);
    const [busy] = await seed(1, { partDay: d, status: "registered", updatedAt: ago(45), scheduledAt: new Date(Date.now() + DAY) });
    await seed(5, { partDay: d, status: "completed", updatedAt: ago(45) });
    const other = new pg.Client({ connectionString: fx.tdb.url });
    await other.connect();
    try {
      await other.query("BEGIN");
      await other.query("SELECT 1 FROM triggers WHERE id = $1::uuid FOR UPDATE", [busy]);
      const r = await prune(fx.tdb.url, { olderThanDays: 30, settleTimeoutMs: 200 });
      expect(r.partitions).toBe(0);
      expect(r.deferred).toBeGreaterThan(0);
      await other.query("ROLLBACK");
    } finally {
      await other.end();
    }
    const r = await prune(fx.tdb.url, { olderThanDays: 30 });
    expect(r).toMatchObject({ triggers: 7, moved: 1 });
    expect(r.partitions).toBeGreaterThanOrEqual(2);
    expect(await count("triggers", "id = $1::uuid", [busy])).toBe(1);
  });

  it("announces its cutoff: a trigger that may be removed is not replayed", async () => {
    const [t] = await seed(1, { partDay: day(-2), status: "completed", updatedAt: ago(31) });
    await prune(fx.tdb.url, { olderThanDays: 30 });
    const replay = (id: string) => query(clientRunner(fx.client), "session_replay", fx.projectId, id, "replay");
    expect(await replay(t!)).toEqual([]);
    const [fresh] = await seed(1, { partDay: day(-2), status: "completed", updatedAt: ago(1) });
    expect(await replay(fresh!)).toHaveLength(1);
  });

  it("makes no day before the cutoff only to drop it: a lone old day is the only one removed", async () => {
    await prune(fx.tdb.url, { olderThanDays: 30 });
    const lone = day(-80);
    // only that day (seed() would fill the days up to today)
    await fx.client.query("SELECT ttr_ensure_partitions($1::date, $1::date)", [lone]);
    await fx.client.query(
      `INSERT INTO triggers (project_id, status, url, method, headers, scheduled_at, created_at, updated_at, part_day)
       SELECT $1::uuid, 'completed', 'http://127.0.0.1:9/x', 'GET', '[]', $2, $2, $2, $3::date FROM generate_series(1, 2)`,
      [fx.projectId, ago(80), lone],
    );
    const r = await prune(fx.tdb.url, { olderThanDays: 30 });
    expect(r).toMatchObject({ triggers: 2, partitions: 1 });
    expect(await exists(`triggers_p${lone.replaceAll("-", "")}`)).toBe(false);
  });
});

/** A day's three tables, as detachDays takes them. */
const tablesOf = (d: string) => {
  const suffix = d.replaceAll("-", "");
  return { executionsTable: `executions_p${suffix}`, tagsTable: `trigger_tags_p${suffix}`, triggersTable: `triggers_p${suffix}` };
};

describe("what a pass cut off midway left", () => {
  it("a day detached from some of its tables but not all: the next pass detaches and drops the rest", async () => {
    const d = day(-45);
    const [done] = await seed(1, { partDay: d, status: "completed", updatedAt: ago(45), tags: ["half"] }, { status: "complete", completedAt: ago(45) });
    const { executionsTable, tagsTable, triggersTable } = tablesOf(d);
    // as a pass leaves it when stopped between its one-table-at-a-time detaches
    await fx.client.query(`ALTER TABLE executions DETACH PARTITION ${executionsTable}`);
    await fx.client.query(`DROP TABLE ${executionsTable}`);
    const said: string[] = [];
    await prune(fx.tdb.url, { olderThanDays: 30, log: (msg) => said.push(msg) });
    expect(said).toContain("finishing a day an interrupted pass left partly detached");
    expect(await exists(triggersTable)).toBe(false);
    expect(await exists(tagsTable)).toBe(false);
    expect(await count("triggers", "id = $1::uuid", [done])).toBe(0);
  });

  it("a day's tables detached but not dropped: the next pass drops them; a recent day's are left alone", async () => {
    const old = day(-46);
    await seed(2, { partDay: old, status: "completed", updatedAt: ago(46) }, { status: "complete", completedAt: ago(46) });
    for (const [parent, table] of [["executions", tablesOf(old).executionsTable], ["trigger_tags", tablesOf(old).tagsTable], ["triggers", tablesOf(old).triggersTable]]) {
      await fx.client.query(`ALTER TABLE ${parent} DETACH PARTITION ${table}`);
    }
    await fx.client.query("CREATE TABLE executions_p29991231 (x int)");
    const said: string[] = [];
    await prune(fx.tdb.url, { olderThanDays: 30, log: (msg) => said.push(msg) });
    expect(said.filter((m) => m === "dropping a day's table an interrupted pass detached but did not drop")).toHaveLength(3);
    for (const table of Object.values(tablesOf(old))) expect(await exists(table)).toBe(false);
    expect(await exists("executions_p29991231")).toBe(true);
    await fx.client.query("DROP TABLE executions_p29991231");
  });
});

describe("the retention lock", () => {
  /** A session named like a pass's, holding the lock; `busy`: running a statement meanwhile. */
  async function holder(): Promise<pg.Client> {
    const c = new pg.Client({ connectionString: fx.tdb.url, application_name: "ttr-retention" });
    await c.connect();
    await c.query("SELECT pg_advisory_lock($1)", [RETENTION_LOCK_KEY]);
    c.on("error", () => {});
    return c;
  }

  it("held by a pass that runs: this one gives up, says so (locked), and removes nothing", async () => {
    const other = await holder();
    try {
      const [old] = await seed(1, { partDay: day(-47), status: "completed", updatedAt: ago(47) }, { status: "complete", completedAt: ago(47) });
      const r = await prune(fx.tdb.url, { olderThanDays: 30, lockWaitMs: 300, staleLockSeconds: 3600 });
      expect(r).toMatchObject({ locked: true, triggers: 0, executions: 0 });
      expect(await count("triggers", "id = $1::uuid", [old])).toBe(1);
    } finally {
      await other.end();
    }
  });

  it("held by a session idle past the limit (a frozen scheduler's): that session is ended and the pass runs", async () => {
    const frozen = await holder();
    await new Promise((r) => setTimeout(r, 1500));
    const r = await prune(fx.tdb.url, { olderThanDays: 30, lockWaitMs: 300, staleLockSeconds: 1 });
    expect(r.locked).toBe(false);
    const { rows } = await fx.client.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'ttr-retention'");
    expect(rows[0].n).toBe(0);
    await frozen.end().catch(() => {});
  });
});

describe("partitions", () => {
  it("announces each change of the day partitions once, and nothing else", async () => {
    await withPgClient(
      fx.tdb.url,
      async (listener) => {
        let notices = 0;
        listener.on("notification", (n) => {
          if (n.channel === PARTITIONS_CHANNEL) notices++;
        });
        await listener.query(`LISTEN ${PARTITIONS_CHANNEL}`);
        // a notice committed before this answers has arrived with it
        const heard = async () => {
          await listener.query("SELECT 1");
          const n = notices;
          notices = 0;
          return n;
        };
        await ensurePartitions(fx.client, new Date());
        expect(await heard()).toBe(0); // all there already
        // days 40 to 47 ahead: made by nothing else here
        await ensurePartitions(fx.client, new Date(Date.now() + 40 * DAY));
        expect(await heard()).toBe(1);
        const days = [day(41), day(42)];
        await detachDays(clientRunner(fx.client), days.map(tablesOf), { quiet: false });
        expect(await heard()).toBe(1);
        await fx.client.query(`DROP TABLE ${days.flatMap((d) => Object.values(tablesOf(d))).join(", ")}`);
        expect(await heard()).toBe(0); // detached tables are not partitions any more
        // through Prisma, as the api makes them: no error reading the announcement back
        const prisma = createDb(fx.tdb.url, { max: 1 });
        try {
          expect(await ensure(prisma, new Date(Date.now() + 50 * DAY))).toBeGreaterThan(0);
          expect(await heard()).toBe(1);
        } finally {
          await prisma.$disconnect();
        }
      },
      "ttr-test",
    );
  });

  it("reads PostgreSQL's bounds", () => {
    expect(partitionBounds("FOR VALUES FROM ('2026-11-25') TO ('2026-11-26')")).toEqual({ from: "2026-11-25", to: "2026-11-26" });
    expect(partitionBounds("FOR VALUES FROM (MINVALUE) TO ('2026-11-26')")).toEqual({ from: "-infinity", to: "2026-11-26" });
    expect(partitionBounds("DEFAULT")).toBeNull();
  });

  it("are made ahead, once", async () => {
    expect(await exists(`triggers_p${day(7).replaceAll("-", "")}`)).toBe(true);
    expect(await ensurePartitions(fx.client, new Date())).toBe(0);
    const made = await ensurePartitions(fx.client, new Date(Date.now() + 2 * DAY));
    expect(made).toBe(2);
    expect(await exists(`executions_p${day(9).replaceAll("-", "")}`)).toBe(true);
  });

  it("new rows get time-ordered ids under today", async () => {
    const { rows } = await fx.client.query<{ id: string; d: string }>(
      `INSERT INTO triggers (project_id, status, url, method, headers, scheduled_at) VALUES ($1::uuid, 'registered', 'http://x', 'GET', '[]', now()) RETURNING id::text, part_day::text AS d`,
      [fx.projectId],
    );
    expect(rows[0]!.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);
    expect(rows[0]!.d).toBe(day(0));
    expect(sql("ensure_partitions")).toContain("ttr_ensure_partitions");
  });

  it("store the columns a fire changes last, while the table shows its columns as declared", async () => {
    const far = day(400);
    await fx.client.query("SELECT ttr_ensure_partitions($1::date, $1::date)", [far]);
    const columns = async (table: string) =>
      (await fx.client.query<{ name: string }>("SELECT attname AS name FROM pg_attribute WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum", [table])).rows.map((r) => r.name);
    const parent = await columns("triggers");
    const part = await columns(`triggers_p${far.replaceAll("-", "")}`);
    expect(part.slice(-6)).toEqual(["attempt_started_at", "attempt_timeout_seconds", "attempt_reap_after", "status", "attempts", "updated_at"]);
    expect([...part].sort()).toEqual([...parent].sort());
    expect(parent.indexOf("status")).toBeLessThan(parent.length - 6);

    // Rows go through the parent in its order, and come back the same.
    const { rows } = await fx.client.query<{ id: string }>(
      `INSERT INTO triggers (project_id, status, title, url, method, headers, body, tags, scheduled_at, part_day)
       VALUES ($1::uuid, 'registered', 't', 'http://x/y', 'POST', '[["a","b"]]', '\\x6869', '{k}', '2030-01-01T00:00:00Z', $2::date) RETURNING id::text`,
      [fx.projectId, far],
    );
    const id = rows[0]!.id;
    await fx.client.query("UPDATE triggers SET status = 'running', attempts = attempts + 1, updated_at = '2030-01-01T00:00:01Z' WHERE id = $1::uuid AND part_day = $2::date", [id, far]);
    const { rows: back } = await fx.client.query("SELECT * FROM triggers WHERE id = $1::uuid AND part_day = $2::date", [id, far]);
    expect(Object.keys(back[0]!)).toEqual(parent);
    expect(back[0]).toMatchObject({ status: "running", attempts: 1, title: "t", url: "http://x/y", method: "POST", headers: [["a", "b"]], tags: ["k"], part_day: expect.any(Date) });
    expect(back[0]!.body.toString()).toBe("hi");
    expect(back[0]!.updated_at.toISOString()).toBe("2030-01-01T00:00:01.000Z");
  });

  it("move rows between a day made in the declared order (before the change) and one made since", async () => {
    const [older, newer] = [day(500), day(501)];
    const suffix = older.replaceAll("-", "");
    for (const table of ["triggers", "executions", "trigger_tags"]) {
      await fx.client.query(`CREATE TABLE ${table}_p${suffix} (LIKE ${table} INCLUDING DEFAULTS)`);
      await fx.client.query(`ALTER TABLE ${table} ATTACH PARTITION ${table}_p${suffix} FOR VALUES FROM ('${older}') TO ('${newer}')`);
    }
    await fx.client.query("SELECT ttr_ensure_partitions($1::date, $1::date)", [newer]);
    const { rows } = await fx.client.query<{ id: string }>(
      `INSERT INTO triggers (project_id, status, title, url, method, headers, tags, scheduled_at, attempts, part_day)
       VALUES ($1::uuid, 'completed', 'moved', 'http://x/m', 'PUT', '[["c","d"]]', '{m}', '2030-01-01T00:00:00Z', 2, $2::date) RETURNING id::text`,
      [fx.projectId, older],
    );
    const id = rows[0]!.id;
    await fx.client.query("UPDATE triggers SET part_day = $3::date WHERE id = $1::uuid AND part_day = $2::date", [id, older, newer]);
    const { rows: back } = await fx.client.query("SELECT tableoid::regclass::text AS part, * FROM triggers WHERE id = $1::uuid", [id]);
    expect(back).toHaveLength(1);
    expect(back[0]).toMatchObject({ part: `triggers_p${newer.replaceAll("-", "")}`, status: "completed", attempts: 2, title: "moved", url: "http://x/m", method: "PUT", headers: [["c", "d"]], tags: ["m"] });
  });
});
