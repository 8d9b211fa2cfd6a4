// PostgreSQL frozen: every process of the server stopped (SIGSTOP) with the
// api's connections still open, as when it hangs or the network between
// them drops packets. Nothing is refused, nothing answers. A request that
// needs it must still answer 503 Unavailable within 5 s (RELIABILITY.md)
// instead of waiting for an answer that may never come, a transaction it
// left waiting must not commit once the server resumes, and the api must
// work again then. A request that is merely slow, on a server that answers,
// must not be cut short. Triggers that fall due while it is frozen are sent
// once each, soon after it resumes.
import { expect, it } from "vitest";
import { deliveredOnce, figure, jsonLines, probe, secondAfter, sleep, UNAVAILABLE, until, useRig } from "./rig.js";

const theRig = useRig();

const schedule = (path: string, key?: string) => {
  const rig = theRig();
  return rig.call("POST", "/schedule", {
    "ttr-api-key": rig.apiKey,
    "ttr-url": `${rig.target.base}/${path}`,
    "ttr-scheduled-at": "now | add 1h",
    ...(key ? { "ttr-custom-key": key } : {}),
  });
};

const json = () => ({ "ttr-api-key": theRig().apiKey, "content-type": "application/json" });

const declare = (tag: string) => {
  const rig = theRig();
  return rig.call("POST", "/declare", json(), JSON.stringify({ tag, items: [{ url: `${rig.target.base}/${tag}`, scheduledAt: "now | add 1h", customKey: tag }] }));
};

/** Runs `sql` (a lock) in a transaction of its own, then holds it for `ms`. */
const holdLock = (ms: number, sql: string, ...values: unknown[]) =>
  theRig().db.$transaction(
    async (tx) => {
      await tx.$queryRawUnsafe(sql, ...values);
      await sleep(ms);
    },
    { timeout: 60_000 },
  );

/** Holds the project's /declare lock (declare_lock_project.sql) for `ms`. */
const holdDeclareLock = (ms: number) => holdLock(ms, "SELECT pg_advisory_xact_lock(hashtextextended('declare:' || $1, 0))::text", theRig().projectId);

/**
 * Sends a request that `held` keeps waiting on a lock (held 3 s), freezes
 * the server a second later until the request is answered, then lets the
 * lock go: the answer, and how long it took.
 */
async function frozenWhileWaiting(hold: () => Promise<unknown>, send: () => ReturnType<typeof declare>) {
  const rig = theRig();
  const held = hold();
  await sleep(200);
  const asked = Date.now();
  const pending = send();
  await sleep(1000);
  rig.pg.freeze(true);
  let res: Awaited<typeof pending>;
  try {
    res = await pending;
  } finally {
    rig.pg.freeze(false);
  }
  const took = Date.now() - asked;
  await held;
  return { res, took };
}

const triggersTagged = async (tag: string) => {
  const rig = theRig();
  const res = await rig.call("GET", `/triggers?tag=${tag}`, { "ttr-api-key": rig.apiKey });
  expect(res.status).toBe(200);
  return res.json<{ triggers: unknown[] }>().triggers.length;
};

it("PostgreSQL frozen: /schedule, DELETE /cancel, /declare, /bulk, /tag-policies, the dashboard's reads and sign-in answer 503 Unavailable within 5 s; once it resumes, /schedule stores again", async () => {
  const rig = theRig();
  const calls: Array<[string, () => ReturnType<typeof schedule>]> = [
    ["/schedule", () => schedule("frozen")],
    ["/schedule with a custom key", () => schedule("frozen-key", "frozen")],
    ["DELETE /cancel", () => rig.call("DELETE", "/cancel", { "ttr-api-key": rig.apiKey, "ttr-custom-key": "warm" })],
    ["/declare", () => declare("frozen-declare")],
    ["/bulk", () => rig.call("POST", "/bulk", json(), JSON.stringify({ upserts: [{ url: `${rig.target.base}/b`, customKey: "frozen-bulk" }] }))],
    ["GET /tag-policies", () => rig.call("GET", "/tag-policies", { "ttr-api-key": rig.apiKey })],
    ["POST /tag-policies", () => rig.call("POST", "/tag-policies", json(), JSON.stringify({ tag: "frozen", maxConcurrent: 2 }))],
    ["GET /triggers", () => rig.call("GET", "/triggers", { "ttr-api-key": rig.apiKey })],
    ["POST /auth/login", () => rig.call("POST", "/auth/login", { "content-type": "application/json" }, JSON.stringify({ email: "nobody@example.com", password: "not-a-password" }))],
  ];
  // connections open in every pool first, as in a running api
  expect((await schedule("warm")).status).toBe(200);
  expect((await schedule("warm-key", "warm")).status).toBe(200);
  for (const [label, call] of calls.slice(3)) expect((await call()).status, label).toBeLessThan(500);
  rig.pg.freeze(true);
  try {
    const answers = await Promise.all(
      calls.map(async ([label, call]) => {
        const asked = Date.now();
        const res = await call();
        return { label, res, took: Date.now() - asked };
      }),
    );
    for (const { label, res, took } of answers) {
      expect(took, label).toBeLessThan(5000);
      expect(res.status, label).toBe(503);
      expect(res.json(), label).toEqual(UNAVAILABLE);
      expect(Number(res.headers["retry-after"]), label).toBeGreaterThan(0);
      figure("PostgreSQL frozen", `${label} answered 503 in`, took / 1000, "s");
    }
  } finally {
    rig.pg.freeze(false);
  }
  const resumed = Date.now();
  const at = await until(async () => (await schedule("after")).status === 200, 10_000, "/schedule answers 200 again");
  figure("PostgreSQL frozen", "/schedule stored again after the server resumed", (at - resumed) / 1000, "s");
}, 60_000);

it("a /declare slowed by a lock, on a server that answers, waits and succeeds; one whose server freezes while it waits answers 503 within 5 s and commits nothing once the server resumes", async () => {
  const rig = theRig();
  // slow: the project's /declare lock held for 6 s, well past the watch's checks
  const held = holdDeclareLock(6000);
  await sleep(200);
  const asked = Date.now();
  const slow = await declare("slow-declare");
  const slowTook = Date.now() - asked;
  await held;
  expect(slow.status).toBe(200);
  expect(slowTook).toBeGreaterThan(5000);
  expect(await triggersTagged("slow-declare")).toBe(1);

  // frozen: the same wait, and the server stops answering during it
  const { res: frozen, took } = await frozenWhileWaiting(() => holdDeclareLock(3000), () => declare("frozen-wait"));
  expect(took).toBeLessThan(5000);
  expect(frozen.status).toBe(503);
  expect(frozen.json()).toEqual(UNAVAILABLE);
  figure("PostgreSQL frozen", "/declare waiting on a lock when the server froze answered 503 in", took / 1000, "s");
  // the lock is the project's: a later /declare runs once the frozen one's transaction has ended
  expect((await declare("after-frozen-wait")).status).toBe(200);
  expect(await triggersTagged("frozen-wait")).toBe(0);
  // every line JSON (jsonLines), and no request taken for a bug, the abandoned one included
  for (const s of rig.services) expect(jsonLines(s).filter((l) => l.level === "error"), `${s.name}: error lines`).toEqual([]);
}, 60_000);

it("a POST /tag-policies waiting on its policy's row when the server freezes answers 503 within 5 s, and the policy is unchanged once the server resumes", async () => {
  const rig = theRig();
  const post = (maxConcurrent: number) => rig.call("POST", "/tag-policies", json(), JSON.stringify({ tag: "row-held", maxConcurrent }));
  expect((await post(1)).status).toBe(200);
  const lockRow = () => holdLock(3000, "SELECT id::text FROM tag_policies WHERE project_id = $1::uuid AND tag = 'row-held' FOR UPDATE", rig.projectId);
  const { res, took } = await frozenWhileWaiting(lockRow, () => post(7));
  expect(took).toBeLessThan(5000);
  expect(res.status).toBe(503);
  expect(res.json()).toEqual(UNAVAILABLE);
  figure("PostgreSQL frozen", "POST /tag-policies waiting on its row when the server froze answered 503 in", took / 1000, "s");
  // its write, let through once the row was free, rolled back
  await sleep(500);
  const policies = (await rig.call("GET", "/tag-policies", { "ttr-api-key": rig.apiKey })).json<{ tagPolicies: Array<{ tag: string; maxConcurrent: number }> }>();
  expect(policies.tagPolicies.find((p) => p.tag === "row-held")?.maxConcurrent).toBe(1);
}, 60_000);

it("a /schedule whose INSERT waits on a lock when the server freezes answers 503 within 5 s; the server ends that INSERT once it resumes, and nothing is stored or sent", async () => {
  const rig = theRig();
  expect((await schedule("warm-insert")).status).toBe(200);
  const now = () => rig.call("POST", "/schedule", { "ttr-api-key": rig.apiKey, "ttr-url": `${rig.target.base}/insert-held`, "ttr-scheduled-at": "now" });
  // the lock is held past the resume, so the server's own limit ends the INSERT first
  const { res, took } = await frozenWhileWaiting(() => holdLock(6000, "LOCK TABLE triggers IN ACCESS EXCLUSIVE MODE"), now);
  expect(took).toBeLessThan(5000);
  expect(res.status).toBe(503);
  expect(res.json()).toEqual(UNAVAILABLE);
  figure("PostgreSQL frozen", "/schedule whose INSERT waited on a lock when the server froze answered 503 in", took / 1000, "s");
  // The INSERT the api stopped waiting for was still waiting in the server
  // for the lock; the server ends it itself (its statement_timeout passed
  // while it was frozen), so it never commits: no row to remove, none left.
  const url = `${rig.target.base}/insert-held`;
  await sleep(2500);
  expect((await rig.db.$queryRawUnsafe<Array<{ n: number }>>("SELECT count(*)::int AS n FROM triggers WHERE url = $1", url))[0]!.n).toBe(0);
  const api = rig.services.find((s) => s.name === "api")!;
  expect(jsonLines(api).filter((l) => String(l.message).includes("had answered 503"))).toEqual([]);
  expect(rig.target.hits("/insert-held")).toEqual([]);
}, 60_000);

it("PostgreSQL frozen for 8 s while triggers fall due: every /metrics answers at once; each trigger is sent once, none early, all within 5 s of the server resuming", async () => {
  const rig = theRig();
  const first = secondAfter(2000);
  const due = new Map<string, Date>();
  for (let i = 0; i < 60; i++) due.set(`due-while-frozen/${i}`, new Date(first.getTime() + Math.floor(i / 10) * 1000));
  await Promise.all([...due].map(([p, at]) => rig.schedule(p, at)));
  // frozen from the middle of the second second: four of the six seconds fall due while it is
  await sleep(first.getTime() + 1500 - Date.now());
  rig.pg.freeze(true);
  const frozenAt = Date.now();
  try {
    // Each service's /metrics still answers, well within a scrape's 10 s,
    // and says PostgreSQL is not answering.
    for (const service of rig.services) {
      const asked = Date.now();
      const res = await probe(service, "/metrics");
      const took = Date.now() - asked;
      expect(took, `${service.name} /metrics answered in ${took} ms`).toBeLessThan(2000);
      expect(res?.status).toBe(200);
      expect(res?.text).toMatch(/^ttr_store_up\{[^}]*store="postgres"[^}]*\} 0$/m);
    }
    await sleep(frozenAt + 8000 - Date.now());
  } finally {
    rig.pg.freeze(false);
  }
  const resumed = Date.now();
  const arrivals = await deliveredOnce(rig, due, 20_000);
  const last = Math.max(...arrivals);
  expect(last - resumed, "the last trigger sent within 5 s of the server resuming").toBeLessThan(5000);
  figure("PostgreSQL frozen", "triggers due while it was frozen, the last sent after it resumed", (last - resumed) / 1000, "s");
}, 60_000);
