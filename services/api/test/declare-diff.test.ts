// The /declare diff and the /bulk upserts as pure functions (packages/core
// declare.ts), without a database: docs/api/declare-and-bulk.md (matching,
// cancellations, changedFields and bodies).
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  bodyHash,
  type DeclaredItem,
  encodeItemBody,
  itemTags,
  planDeclare,
  planUpserts,
  type StoredGenerator,
  type StoredJob,
} from "@ttr/core";

const now = new Date("2030-06-01T12:00:00.500Z");
const later = new Date("2030-06-02T00:00:00.000Z");
const earlier = new Date("2030-05-01T00:00:00.000Z");
let counter = 0;
const newId = () => `new-${++counter}`;

function item(over: Partial<DeclaredItem> = {}): DeclaredItem {
  return {
    customKey: "k",
    when: { kind: "once", at: later, nowBased: false },
    url: "http://t/x",
    method: "POST",
    headers: [["X-A", "1"]],
    body: Buffer.from("{}"),
    title: "T",
    tags: ["a", "tag"],
    ...over,
  };
}
const cron = (expr = "0 * * * *", tz = "UTC") => ({ kind: "cron" as const, expr, tz });

let seq = 0;
function job(over: Partial<StoredJob> = {}): StoredJob {
  seq++;
  return {
    id: `job-${seq}`,
    customKey: "k",
    generatorId: null,
    partDay: "2026-01-02",
    status: "registered",
    scheduledAt: later,
    url: "http://t/x",
    method: "POST",
    headers: [["X-A", "1"]],
    bodyHash: bodyHash(Buffer.from("{}")),
    title: "T",
    tags: ["tag", "a"],
    createdAt: new Date(Date.UTC(2030, 0, 1, 0, 0, seq)),
    attempted: false,
    ...over,
  };
}
function gen(over: Partial<StoredGenerator> = {}): StoredGenerator {
  seq++;
  return {
    id: `gen-${seq}`,
    customKey: "k",
    cronExpr: "0 * * * *",
    tz: "UTC",
    url: "http://t/x",
    method: "POST",
    headers: [["X-A", "1"]],
    bodyHash: bodyHash(Buffer.from("{}")),
    title: "T",
    tags: ["tag", "a"],
    createdAt: new Date(Date.UTC(2030, 0, 1, 0, 0, seq)),
    skipThrough: null,
    ...over,
  };
}

const declare = (items: DeclaredItem[], jobs: StoredJob[] = [], generators: StoredGenerator[] = [], runMissed = false) =>
  planDeclare({ items, jobs, generators, now, runMissed, newId });

describe("item bodies (item rule 4)", () => {
  it("sends JSON values compactly, strings with their quotes", () => {
    expect(encodeItemBody({ a: 1, b: [true, null] })?.toString()).toBe('{"a":1,"b":[true,null]}');
    expect(encodeItemBody("hi")?.toString()).toBe('"hi"');
    expect(encodeItemBody(42)?.toString()).toBe("42");
    expect(encodeItemBody(false)?.toString()).toBe("false");
    expect(encodeItemBody([])?.toString()).toBe("[]");
    expect(encodeItemBody("")?.toString()).toBe('""');
  });
  it("decodes _tag text and base64, skipping invalid base64 characters", () => {
    expect(encodeItemBody({ _tag: "text", value: "héllo" })).toEqual(Buffer.from("héllo", "utf8"));
    expect(encodeItemBody({ _tag: "base64", value: "aGVs!!bG8" })).toEqual(Buffer.from("hello"));
    expect(encodeItemBody({ _tag: "base64", value: "AP8=" })).toEqual(Buffer.from([0, 255]));
  });
  it("has no body when omitted, null, or an empty text or base64 value", () => {
    for (const b of [undefined, null, { _tag: "text", value: "" }, { _tag: "base64", value: "" }]) expect(encodeItemBody(b)).toBeNull();
  });
  it("sends any other object as JSON as written", () => {
    expect(encodeItemBody({ _tag: "other", value: "x" })?.toString()).toBe('{"_tag":"other","value":"x"}');
    expect(encodeItemBody({ _tag: "text", value: 5 })?.toString()).toBe('{"_tag":"text","value":5}');
    expect(encodeItemBody({ _tag: "text" })?.toString()).toBe('{"_tag":"text"}');
  });
  it("adds the declared tag once (item rule 3)", () => {
    expect(itemTags(["x", "y"], "t")).toEqual(["x", "y", "t"]);
    expect(itemTags(["t", "y"], "t")).toEqual(["t", "y"]);
    expect(itemTags(["x"], null)).toEqual(["x"]);
  });
});

describe("diff table", () => {
  it("no match: added, or skipped for a past one-shot; a now-based or runMissed one is added", () => {
    const plan = declare([
      item({ customKey: "a" }),
      item({ customKey: "b", when: { kind: "once", at: earlier, nowBased: false } }),
      item({ customKey: "c", when: { kind: "once", at: earlier, nowBased: true } }),
      item({ customKey: "d", when: cron() }),
    ]);
    expect(plan.items.map((o) => [o.operation, o.kind])).toEqual([["added", "job"], ["skipped", "job"], ["added", "job"], ["added", "generator"]]);
    expect(plan.writes.insertJobs.map((j) => j.status)).toEqual(["registered", "skipped", "registered"]);
    expect(declare([item({ when: { kind: "once", at: earlier, nowBased: false } })], [], [], true).items[0]!.operation).toBe("added");
  });

  it("same kind and equal: unchanged with the same id; status and runMissed are not compared", () => {
    const j = job({ status: "skipped" });
    const plan = declare([item()], [j], [], true);
    expect(plan.items).toEqual([{ operation: "unchanged", customKey: "k", kind: "job", id: j.id }]);
    expect(plan.writes.updateJobs).toEqual([]);
  });

  it("headers compare as an object, tags as a set, method after upper-casing", () => {
    const j = job({ headers: [["X-B", "2"], ["X-A", "1"]], tags: ["a", "tag"] });
    const plan = declare([item({ headers: [["X-A", "1"], ["X-B", "2"]], tags: ["tag", "a"] })], [j]);
    expect(plan.items[0]!.operation).toBe("unchanged");
    const renamed = declare([item({ headers: [["x-a", "1"]] })], [job()]);
    expect(renamed.items[0]!.changedFields).toEqual(["headers"]);
  });

  it("a header named __proto__ or constructor compares like any other", () => {
    for (const name of ["__proto__", "constructor", "toString"]) {
      const j = job({ headers: [[name, "x"], ["a", "1"]] });
      for (const headers of [[["a", "1"], [name, "y"]], [["a", "1"]]] as Array<Array<[string, string]>>) {
        expect(declare([item({ headers })], [j]).items[0], `${name}: ${JSON.stringify(headers)}`).toMatchObject({ operation: "updated", changedFields: ["headers"] });
      }
      expect(declare([item({ headers: [["a", "1"], [name, "x"]] })], [j]).items[0]!.operation).toBe("unchanged");
    }
  });

  it("registered or skipped and different: updated in place, changedFields in the documented order", () => {
    const j = job({ status: "skipped" });
    const plan = declare([item({ title: null, url: "http://t/y", when: { kind: "once", at: now, nowBased: true } })], [j]);
    expect(plan.items).toEqual([{ operation: "updated", customKey: "k", kind: "job", id: j.id, changedFields: ["scheduledAt", "url", "title"] }]);
    expect(plan.writes.updateJobs[0]).toMatchObject({ id: j.id, partDay: j.partDay, status: "registered" });
  });

  it("each one-shot field is reported by its name", () => {
    const cases: Array<[Partial<DeclaredItem>, string]> = [
      [{ when: { kind: "once", at: new Date(later.getTime() + 1000), nowBased: false } }, "scheduledAt"],
      [{ url: "http://t/z" }, "url"],
      [{ method: "PUT" }, "method"],
      [{ headers: [] }, "headers"],
      [{ body: null }, "body"],
      [{ title: "U" }, "title"],
      [{ tags: ["tag"] }, "tags"],
    ];
    for (const [over, name] of cases) expect(declare([item(over)], [job()]).items[0]!.changedFields).toEqual([name]);
  });

  it("each recurring field is reported by its name", () => {
    const cases: Array<[Partial<DeclaredItem>, string]> = [
      [{ when: cron("5 * * * *") }, "cronExpr"],
      [{ when: cron("0 * * * *", "Europe/Berlin") }, "tz"],
      [{ when: cron(), url: "http://t/z" }, "url"],
      [{ when: cron(), method: "GET" }, "method"],
      [{ when: cron(), headers: [["X-A", "2"]] }, "headers"],
      [{ when: cron(), body: Buffer.from("x") }, "body"],
      [{ when: cron(), title: null }, "title"],
      [{ when: cron(), tags: ["tag", "b"] }, "tags"],
    ];
    for (const [over, name] of cases) {
      const g = gen();
      const plan = declare([item(over)], [], [g]);
      expect(plan.items[0]).toEqual({ operation: "updated", customKey: "k", kind: "generator", id: g.id, changedFields: [name] });
    }
  });

  it.each([
    ["retrying", job({ status: "retrying", attempted: true })],
    ["skipped with its retry still planned (moved into the past by key while retrying)", job({ status: "skipped", attempted: true, scheduledAt: earlier })],
  ])("%s and different: updated with a new id, the old one and its retry cancelled without an entry", (_name, j) => {
    const plan = declare([item({ url: "http://t/new", when: { kind: "once", at: j.scheduledAt, nowBased: false } })], [j]);
    expect(plan.items[0]).toMatchObject({ operation: "updated", changedFields: ["url"] });
    expect(plan.items[0]!.id).not.toBe(j.id);
    expect(plan.writes.cancelJobs).toEqual([{ id: j.id, partDay: j.partDay, queued: false }]);
    expect(plan.writes.insertJobs[0]!.id).toBe(plan.items[0]!.id);
    expect(plan.writes.updateJobs).toEqual([]);
    expect(plan.cancelled).toEqual([]);
  });

  it("skipped and never attempted, different: updated in place", () => {
    const j = job({ status: "skipped", scheduledAt: earlier });
    const plan = declare([item({ url: "http://t/new", when: { kind: "once", at: earlier, nowBased: false } })], [j]);
    expect(plan.items[0]).toMatchObject({ operation: "updated", id: j.id, changedFields: ["url"] });
    expect(plan.writes.cancelJobs).toEqual([]);
    expect(plan.writes.updateJobs.map((w) => w.id)).toEqual([j.id]);
  });

  it("recurring and different: updated in place, its upcoming instance replaced without an entry", () => {
    const g = gen();
    const upcoming = job({ customKey: null, generatorId: g.id });
    const plan = declare([item({ when: cron("*/5 * * * *") })], [upcoming], [g]);
    expect(plan.items[0]).toMatchObject({ operation: "updated", id: g.id, changedFields: ["cronExpr"] });
    expect(plan.cancelled).toEqual([]);
    expect(plan.writes.nextInstances).toEqual([{ generatorId: g.id, at: new Date("2030-06-01T12:05:00Z") }]);
  });

  it("other kind: updated with a kind change and a new id, the old one cancelled without an entry", () => {
    const j = job();
    const toGen = declare([item({ when: cron() })], [j]);
    expect(toGen.items[0]).toMatchObject({ operation: "updated", kind: "generator", changedFields: ["kind:job→generator"] });
    expect(toGen.writes.cancelJobs).toEqual([{ id: j.id, partDay: j.partDay, queued: false }]);
    const g = gen();
    const toJob = declare([item()], [], [g]);
    expect(toJob.items[0]).toMatchObject({ operation: "updated", kind: "job", changedFields: ["kind:generator→job"] });
    expect(toJob.writes.cancelGenerators).toEqual([g.id]);
    expect(toJob.cancelled).toEqual([]);
  });

  it("prefers a candidate of the item's kind when both kinds hold the key", () => {
    const j = job();
    const g = gen();
    const plan = declare([item({ when: cron() })], [j], [g]);
    expect(plan.items[0]).toMatchObject({ operation: "unchanged", id: g.id });
    expect(plan.cancelled).toEqual([{ operation: "cancelled", customKey: "k", kind: "job", id: j.id }]);
  });
});

describe("cancellations (rules 3–6, 10)", () => {
  it("lists items first, then one-shots and instances oldest first, then recurring triggers", () => {
    const gone = gen({ customKey: "g-old" });
    const kept = gen({ customKey: "g" });
    const keyless = job({ customKey: null });
    const absent = job({ customKey: "absent" });
    const queued = job({ customKey: "q", status: "queued" });
    const upcoming = job({ customKey: null, generatorId: kept.id });
    const keptQueued = job({ customKey: null, generatorId: kept.id, status: "queued" });
    const goneUpcoming = job({ customKey: null, generatorId: gone.id });
    const plan = declare([item({ customKey: "g", when: cron() }), item({ customKey: null })], [keyless, absent, queued, upcoming, keptQueued, goneUpcoming], [gone, kept]);
    expect(plan.items.map((o) => o.operation)).toEqual(["unchanged", "added"]);
    expect(plan.cancelled).toEqual([
      { operation: "cancelled", customKey: null, kind: "job", id: keyless.id },
      { operation: "cancelled", customKey: "absent", kind: "job", id: absent.id },
      { operation: "cancelled", customKey: "q", kind: "job", id: queued.id },
      { operation: "cancelled", customKey: null, kind: "job", id: upcoming.id },
      { operation: "cancelled", customKey: null, kind: "job", id: goneUpcoming.id },
      { operation: "cancelled", customKey: "g-old", kind: "generator", id: gone.id },
    ]);
    expect(plan.writes.cancelGenerators).toEqual([gone.id]);
    expect(plan.writes.nextInstances.map((n) => n.generatorId)).toEqual([kept.id]);
  });

  it("keeps a queued one-shot whose key is listed and creates a new trigger for the item", () => {
    const queued = job({ status: "queued" });
    const plan = declare([item()], [queued]);
    expect(plan.items[0]!.operation).toBe("added");
    expect(plan.cancelled).toEqual([]);
  });

  it("cancels a retrying instance of a kept recurring trigger with an entry", () => {
    const g = gen();
    const retrying = job({ customKey: null, generatorId: g.id, status: "retrying" });
    const upcoming = job({ customKey: null, generatorId: g.id });
    const plan = declare([item({ when: cron(), url: "http://t/changed" })], [retrying, upcoming], [g]);
    expect(plan.cancelled.map((o) => o.id)).toEqual([retrying.id]);
  });

  it("[] cancels every candidate", () => {
    const plan = declare([], [job(), job({ customKey: "b", status: "skipped" })], [gen()]);
    expect(plan.cancelled.map((o) => o.kind)).toEqual(["job", "job", "generator"]);
  });
});

describe("/bulk upserts", () => {
  it("cancels nothing that is not replaced", () => {
    const plan = planUpserts({ items: [item({ customKey: "other" })], jobs: [job()], generators: [gen({ customKey: "z" })], now, runMissed: false, newId });
    expect(plan.items[0]!.operation).toBe("added");
    expect(plan.cancelled).toEqual([]);
    expect(plan.writes.cancelJobs).toEqual([]);
    expect(plan.writes.cancelGenerators).toEqual([]);
  });
});

describe("properties", () => {
  const arbItem = fc.record({
    url: fc.webUrl(),
    method: fc.constantFrom("GET", "POST", "PUT"),
    title: fc.option(fc.string(), { nil: null }),
    body: fc.option(fc.string(), { nil: null }),
    minute: fc.integer({ min: 0, max: 59 }),
    recurring: fc.boolean(),
  });

  it("declaring what is stored again is all unchanged, with no writes but the recurring refresh", () => {
    fc.assert(
      fc.property(fc.array(arbItem, { maxLength: 8 }), (specs) => {
        const items = specs.map((s, i) =>
          item({
            customKey: `k${i}`,
            url: s.url,
            method: s.method,
            title: s.title,
            body: s.body === null ? null : Buffer.from(s.body),
            when: s.recurring ? cron(`${s.minute} * * * *`) : { kind: "once", at: new Date(later.getTime() + s.minute * 60_000), nowBased: false },
          }),
        );
        const first = declare(items);
        const jobs = first.writes.insertJobs.map((w) => job({ ...w, bodyHash: bodyHash(w.body) }));
        const generators = first.writes.insertGenerators.map((w) => gen({ ...w, bodyHash: bodyHash(w.body) }));
        const again = declare(items, jobs, generators);
        expect(again.items.every((o) => o.operation === "unchanged")).toBe(true);
        expect(again.cancelled).toEqual([]);
        const { nextInstances, ...rest } = again.writes;
        expect(Object.values(rest).every((list) => list.length === 0)).toBe(true);
        expect(nextInstances.length).toBe(generators.length);
      }),
      { numRuns: 100 },
    );
  });
});
