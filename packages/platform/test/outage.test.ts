// Outage and burst logging: one line per change of state, not per retry; a
// burst of the same error logged once, its repeats counted.
import { Writable } from "node:stream";
import winston from "winston";
import { expect, it } from "vitest";
import { OutageLog, RepeatLog } from "../src/index.js";

function capture() {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(JSON.parse(chunk.toString()));
      done();
    },
  });
  const log = winston.createLogger({ format: winston.format.json(), transports: [new winston.transports.Stream({ stream })] });
  return { log, lines };
}

it("OutageLog: one line when the store goes, one when it is back, whatever the number of failures", () => {
  const { log, lines } = capture();
  const outage = new OutageLog(log, "redis", { connection: "c1" });
  outage.recovered();
  for (let i = 0; i < 20; i++) outage.failed(new Error(`connect ECONNREFUSED #${i}`));
  outage.recovered();
  outage.recovered();
  outage.failed("again");
  expect(lines.map((l) => [l.level, l.message, l.connection, l.error])).toEqual([
    ["warn", "redis unavailable", "c1", "connect ECONNREFUSED #0"],
    ["info", "redis available again", "c1", undefined],
    ["warn", "redis unavailable", "c1", "again"],
  ]);
});

it("RepeatLog: the first of a burst is logged, the repeats within the window only counted and reported with the next line", () => {
  const { log, lines } = capture();
  let now = 1_000;
  const repeats = new RepeatLog(log, "jobs vanished", 10_000, () => now);
  for (let i = 0; i < 40; i++) {
    repeats.note(new Error(`Missing key for job ${i}`));
    now += 100;
  }
  expect(lines).toHaveLength(1);
  now += 10_000;
  repeats.note(new Error("Missing key for job 99"));
  expect(lines.map((l) => [l.message, l.error, l.repeatsBefore])).toEqual([
    ["jobs vanished", "Missing key for job 0", 0],
    ["jobs vanished", "Missing key for job 99", 39],
  ]);
});

it("OutageLog.failedUntil: failures of many requests log once; the probe then finds the recovery and logs it", async () => {
  const { log, lines } = capture();
  const outage = new OutageLog(log, "postgres", { connection: "api" });
  let probes = 0;
  const probe = async () => {
    probes++;
    if (probes < 3) throw new Error("still down");
  };
  for (let i = 0; i < 10; i++) outage.failedUntil(new Error("ECONNREFUSED"), probe, 10);
  await new Promise((r) => setTimeout(r, 100));
  expect(probes).toBe(3);
  expect(lines.map((l) => l.message)).toEqual(["postgres unavailable", "postgres available again"]);
});
