// PostgreSQL read-only: every session of the server, open ones included,
// refuses writes, as connections that still reach a standby do (a primary
// demoted by a failover, a DNS name not yet moved). Nothing can be stored,
// so no service is ready and every request that writes answers 503
// Unavailable, not 500, having used no quota; reads still answer. Once the
// server takes writes again, triggers that fell due meanwhile are sent,
// once each, and an attempt that ended while it was read-only is recorded
// as it ended.
import { expect, it } from "vitest";
import { settled } from "../support/rows.js";
import { deliveredOnce, figure, readyzDown, secondAfter, sleep, UNAVAILABLE, until, useRig } from "./rig.js";

const theRig = useRig();

it("PostgreSQL read-only: no service is ready, writes answer 503 Unavailable and use no quota, reads answer; writable again, the triggers due meanwhile are sent once each within 5 s", async () => {
  const rig = theRig();
  const key = { "ttr-api-key": rig.apiKey };
  const json = { ...key, "content-type": "application/json" };
  const used = async () => (await rig.call("GET", "/project", key)).json<{ project: { usedThisMonth: number } }>().project.usedThisMonth;
  const first = secondAfter(3000);
  const due = new Map<string, Date>();
  for (let i = 0; i < 20; i++) due.set(`read-only/${i}`, new Date(first.getTime() + Math.floor(i / 10) * 1000));
  await Promise.all([...due].map(([p, at]) => rig.schedule(p, at)));
  const usedBefore = await used();

  await rig.pg.readOnly(true);
  try {
    await until(async () => (await rig.call("GET", "/readyz")).status === 503, 5000, "the api is not ready");
    await readyzDown(rig, "postgres", "PostgreSQL read-only");
    const writes: Array<[string, () => ReturnType<typeof rig.call>]> = [
      ["/schedule", () => rig.call("POST", "/schedule", { ...key, "ttr-url": `${rig.target.base}/x`, "ttr-scheduled-at": "now | add 1h" })],
      ["/schedule with a custom key", () => rig.call("POST", "/schedule", { ...key, "ttr-url": `${rig.target.base}/x`, "ttr-scheduled-at": "now | add 1h", "ttr-custom-key": "ro" })],
      ["/declare", () => rig.call("POST", "/declare", json, JSON.stringify({ tag: "ro", items: [{ url: `${rig.target.base}/d`, customKey: "d" }] }))],
      ["POST /tag-policies", () => rig.call("POST", "/tag-policies", json, JSON.stringify({ tag: "ro", maxConcurrent: 1 }))],
    ];
    for (const [label, write] of writes) {
      const res = await write();
      expect(res.status, label).toBe(503);
      expect(res.json(), label).toEqual(UNAVAILABLE);
      expect(Number(res.headers["retry-after"]), label).toBeGreaterThan(0);
    }
    expect(await used(), "quota used by the refused calls").toBe(usedBefore);
    const list = await rig.call("GET", "/triggers?limit=5", key);
    expect(list.status, "a read").toBe(200);
    // past the due seconds, so that they fall due while nothing can be written
    await sleep(first.getTime() + 2500 - Date.now());
  } finally {
    await rig.pg.readOnly(false);
  }
  const writable = Date.now();
  const arrivals = await deliveredOnce(rig, due, 20_000);
  const last = Math.max(...arrivals);
  expect(last - writable, "the last due trigger sent within 5 s of the server taking writes").toBeLessThan(5000);
  figure("PostgreSQL read-only", "due triggers, the last sent after the server took writes again", (last - writable) / 1000, "s");
  expect((await rig.call("GET", "/readyz")).status).toBe(200);
}, 60_000);

it("an attempt that ends while PostgreSQL is read-only is recorded once it takes writes, with its target's answer", async () => {
  const rig = theRig();
  const at = secondAfter(1500);
  rig.target.on("/slow-answer", (_req, res) => setTimeout(() => res.writeHead(201).end("made"), 2500));
  const triggerId = await rig.schedule("slow-answer", at);
  // read-only from half a second into the attempt until well after its answer
  await until(() => rig.target.hits("/slow-answer").length > 0, 10_000, "the attempt began");
  await sleep(500);
  await rig.pg.readOnly(true);
  try {
    await sleep(4000);
  } finally {
    await rig.pg.readOnly(false);
  }
  const [execution] = await settled(rig.db, triggerId, 1, 10_000);
  expect(execution!.responseStatus).toBe(201);
  expect(execution!.errorMessage).toBeNull();
  expect(rig.target.hits("/slow-answer")).toHaveLength(1);
}, 60_000);
