// A declaration is applied in one transaction: a database failure midway
// leaves the tag's set exactly as before, cancellations included, and
// re-sending without the fault applies it. The fault is a test-only trigger
// on the triggers table that raises on a marker URL, so it fires on the
// last item's insert, or on the instance a recurring item creates last.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type TestApi } from "../../../test/support/api.js";
import { seedExecution, seedTrigger } from "../../../test/support/session.js";
import { triggerTables } from "../../../test/support/snapshot.js";
import { inHours, ok, post, tagState } from "./declare-support.js";

const MARKER = "http://fault.invalid/injected";

let api: TestApi;
beforeAll(async () => {
  api = await startApi();
  await api.db.$executeRawUnsafe(`
    CREATE FUNCTION test_inject_fault() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.url = '${MARKER}' THEN RAISE EXCEPTION 'injected fault'; END IF;
      RETURN NEW;
    END $$`);
  await api.db.$executeRawUnsafe(
    "CREATE TRIGGER test_inject_fault BEFORE INSERT OR UPDATE ON triggers FOR EACH ROW EXECUTE FUNCTION test_inject_fault()",
  );
});
afterAll(() => api.close());

const T1 = inHours(24);

/** A tag's set with every kind of change pending: updates, replacements, cancellations, recurring refreshes. */
async function setUp(tag: string) {
  await ok(
    post(api, "/declare", {
      tag,
      items: [
        { customKey: "keep", url: "http://127.0.0.1:9/keep", scheduledAt: T1 },
        { customKey: "change", url: "http://127.0.0.1:9/change", scheduledAt: T1 },
        { customKey: "remove", url: "http://127.0.0.1:9/remove", scheduledAt: T1 },
        { customKey: "switch", url: "http://127.0.0.1:9/switch", scheduledAt: T1 },
        { customKey: "gen", url: "http://127.0.0.1:9/gen", scheduledAt: "cron(0 * * * *)" },
        { customKey: "gen-gone", url: "http://127.0.0.1:9/gen-gone", scheduledAt: "cron(0 * * * *)" },
        { url: "http://127.0.0.1:9/keyless", scheduledAt: T1 },
      ],
    }),
  );
  const retrying = await seedTrigger(api, api.projectId, { status: "retrying", customKey: "retrying", tags: [tag], url: "http://r/" });
  await seedExecution(api, api.projectId, retrying, { attemptNumber: 2, triggeredBy: "retry", status: "planned" });
  await seedTrigger(api, api.projectId, { status: "queued", tags: [tag] });
}

const nextItems = (last: Record<string, unknown>) => [
  { customKey: "keep", url: "http://127.0.0.1:9/keep", scheduledAt: T1 },
  { customKey: "change", url: "http://127.0.0.1:9/changed", scheduledAt: T1 },
  { customKey: "switch", url: "http://127.0.0.1:9/switch", scheduledAt: "cron(5 * * * *)" },
  { customKey: "gen", url: "http://127.0.0.1:9/gen-changed", scheduledAt: "cron(0 * * * *)" },
  { customKey: "retrying", url: "http://r/new", scheduledAt: T1 },
  { url: "http://127.0.0.1:9/keyless", scheduledAt: T1 },
  { customKey: "new", url: "http://127.0.0.1:9/new", scheduledAt: T1 },
  last,
];

describe("a failure midway changes nothing", () => {
  it("on the last one-shot item: 500, and every table is exactly as before", async () => {
    const tag = "atomic-job";
    await setUp(tag);
    const before = await triggerTables(api.db);
    const state = await tagState(api, tag);
    const res = await post(api, "/declare", { tag, items: nextItems({ customKey: "boom", url: MARKER, scheduledAt: T1 }) });
    expect(res.status).toBe(500);
    expect(await tagState(api, tag)).toBe(state);
    expect(await triggerTables(api.db)).toBe(before);

    const healed = await ok(post(api, "/declare", { tag, items: nextItems({ customKey: "boom", url: "http://127.0.0.1:9/fine", scheduledAt: T1 }) }));
    expect(healed.summary).toEqual({ unchanged: 1, added: 3, skipped: 0, updated: 4, cancelled: 5 });
  });

  it("on the instance a recurring item creates, the last statement of the call", async () => {
    const tag = "atomic-gen";
    await setUp(tag);
    const before = await triggerTables(api.db);
    const res = await post(api, "/declare", { tag, items: nextItems({ customKey: "boom", url: MARKER, scheduledAt: "cron(0 * * * *)" }) });
    expect(res.status).toBe(500);
    expect(await triggerTables(api.db)).toBe(before);
  });

  it("on /bulk: upserts and cancels are all-or-nothing", async () => {
    const tag = "atomic-bulk";
    await setUp(tag);
    const before = await triggerTables(api.db);
    const res = await post(api, "/bulk", {
      cancels: [{ tag }, "keep", { customKey: "gen" }],
      upserts: [{ customKey: "fresh", url: "http://127.0.0.1:9/fresh" }, { customKey: "bulk-boom", url: MARKER }],
    });
    expect(res.status).toBe(500);
    expect(await triggerTables(api.db)).toBe(before);
  });
});
