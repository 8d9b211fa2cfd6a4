// PostgreSQL down, restarted, and stopped in the middle of a stream of
// writes; and 200 /schedule calls racing for the last units of a quota
// (RELIABILITY.md). A request that needs the database while it is down
// answers 503 Unavailable with Retry-After within 5 s and stores nothing;
// nothing stored is lost, sent twice or sent early.
import { afterAll, beforeAll, expect, it } from "vitest";
import { createProject } from "@ttr/db";
import { deliveredOnce, figure, jsonLines, probe, readyzDown, type Rig, secondAfter, sleep, startRig, UNAVAILABLE, until } from "./rig.js";

let rig: Rig;

beforeAll(async () => {
  rig = await startRig();
}, 60_000);
afterAll(async () => {
  await rig?.close();
});

const storedTriggers = async () =>
  (await rig.db.$queryRawUnsafe<Array<{ n: number }>>("SELECT count(*)::int AS n FROM triggers WHERE project_id = $1::uuid", rig.projectId))[0]!.n;

it("PostgreSQL stopped: /readyz 503 within 1 s everywhere, /schedule 503 Unavailable within 5 s, every service logs the outage once and its end, an api started meanwhile too; triggers due meanwhile fire once it is back", async () => {
  const due = new Map<string, Date>();
  for (let i = 0; i < 30; i++) due.set(`pg-down/${i}`, secondAfter(5000));
  await Promise.all([...due].map(([p, at]) => rig.schedule(p, at)));
  const before = await storedTriggers();
  await rig.pg.stop("fast");

  await readyzDown(rig, "postgres", "PostgreSQL down");
  // an api started meanwhile serves its probes, and its first work (history
  // partitions) logs the outage, not an error
  const late = await rig.start("api", {}, false);
  await until(async () => (await probe(late, "/healthz"))?.status === 200, 10_000, "the late api's /healthz");
  await until(() => jsonLines(late).some((l) => l.message === "postgres unavailable"), 10_000, "the late api logs the outage");
  for (let i = 0; i < 3; i++) {
    const asked = Date.now();
    const res = await rig.call("POST", "/schedule", { "ttr-api-key": rig.apiKey, "ttr-url": `${rig.target.base}/never/${i}`, "ttr-scheduled-at": "now" });
    const took = Date.now() - asked;
    expect(took).toBeLessThan(5000);
    expect(res.status).toBe(503);
    expect(res.json()).toEqual(UNAVAILABLE);
    expect(Number(res.headers["retry-after"])).toBeGreaterThan(0);
    figure("PostgreSQL down", "/schedule answered 503 in", took / 1000, "s");
  }
  await sleep(3000);
  await rig.pg.start();
  const answeringAt = Date.now();
  const arrivals = await deliveredOnce(rig, due, 20_000);
  figure("PostgreSQL down", "triggers due meanwhile sent after PostgreSQL answered", (Math.max(...arrivals) - answeringAt) / 1000, "s");
  expect(await storedTriggers()).toBe(before);
  expect(rig.target.received.filter((r) => r.url.startsWith("/never/"))).toEqual([]);
  await until(async () => (await Promise.all(rig.services.map((s) => probe(s, "/readyz")))).every((r) => r?.status === 200), 5000, "every /readyz is 200 again");
  for (const s of rig.services) {
    const lines = jsonLines(s);
    expect(lines.filter((l) => l.level === "error").map((l) => l.message), `${s.name} logged errors`).toEqual([]);
    // once per connection that saw it, not once per retry
    const outages = lines.filter((l) => l.message === "postgres unavailable").map((l) => String(l.connection));
    expect(new Set(outages).size, `${s.name}: ${outages.join(", ")}`).toBe(outages.length);
    // every service says so, even one with nothing to do meanwhile (its
    // readiness probes saw it), and says when it is back
    expect(outages.length, `${s.name} logs the outage`).toBeGreaterThan(0);
  }
  for (const s of rig.services) {
    const said = (message: string) => jsonLines(s).filter((l) => l.message === message).map((l) => String(l.connection));
    await until(() => said("postgres available again").length >= said("postgres unavailable").length, 5000, `${s.name} logs each recovery`);
  }
}, 60_000);

it("PostgreSQL killed and restarted in the middle of a stream of /schedule calls: each answer is 200 or 503, and exactly the 200s fire, once", async () => {
  const due = new Map<string, Date>();
  const answers = new Map<number, number>();
  const before = await storedTriggers();
  let n = 0;
  let stop = false;
  const writer = async () => {
    while (!stop) {
      const p = `stream/${n++}`;
      const at = secondAfter(1000);
      const res = await rig.call("POST", "/schedule", { "ttr-api-key": rig.apiKey, "ttr-url": `${rig.target.base}/${p}`, "ttr-scheduled-at": at.toISOString() });
      answers.set(res.status, (answers.get(res.status) ?? 0) + 1);
      if (res.status === 200) due.set(p, at);
      else expect(res.json()).toEqual(UNAVAILABLE);
      // a steady stream (about a hundred calls a second): the figure is about recovery, not saturation
      await sleep(res.status === 200 ? 20 : 100);
    }
  };
  const writers = Array.from({ length: 4 }, writer);
  await sleep(2000);
  await rig.pg.stop("immediate");
  await sleep(2000);
  await rig.pg.start();
  const answeringAt = Date.now();
  await sleep(2000);
  stop = true;
  await Promise.all(writers);
  expect([...answers.keys()].sort()).toEqual([200, 503]);
  expect(await storedTriggers()).toBe(before + due.size);
  const arrivals = await deliveredOnce(rig, due, 20_000);
  const dues = [...due.values()];
  const dueMeanwhile = arrivals.filter((_, i) => dues[i]!.getTime() < answeringAt);
  figure("PostgreSQL crash during writes", "triggers due during the outage all sent after PostgreSQL answered", (Math.max(...dueMeanwhile) - answeringAt) / 1000, "s");
  figure("PostgreSQL crash during writes", "/schedule calls answered 200", answers.get(200) ?? 0, "calls");
  figure("PostgreSQL crash during writes", "/schedule calls answered 503 Unavailable", answers.get(503) ?? 0, "calls");
}, 60_000);

it("200 /schedule calls race for a quota of 50: exactly 50 are stored and fire, the others get 402", async () => {
  const { apiKey } = await createProject(rig.db, "quota-race", 50);
  const at = secondAfter(2000);
  const replies = await Promise.all(
    Array.from({ length: 200 }, (_, i) =>
      rig.call("POST", "/schedule", { "ttr-api-key": apiKey, "ttr-url": `${rig.target.base}/quota/${i}`, "ttr-scheduled-at": at.toISOString() }),
    ),
  );
  const ok = replies.flatMap((r, i) => (r.status === 200 ? [i] : []));
  expect(ok).toHaveLength(50);
  expect(replies.filter((r) => r.status === 402)).toHaveLength(150);
  await deliveredOnce(rig, new Map(ok.map((i) => [`quota/${i}`, at])), 15_000);
  expect(rig.target.received.filter((r) => r.url.startsWith("/quota/"))).toHaveLength(50);
}, 60_000);
