// The daylight-saving rule of cron schedules (docs/cron.md), checked in every
// time zone whose clock changes between 2026 and 2030, around every change,
// against a reference model written here independently of the production
// code: a plain minute-by-minute walk over real instants that reads the
// zone's wall clock from Intl and matches it field by field.
//
// The rule, as the model implements it:
// - a job whose minute and hour fields are fixed (numbers, ranges, lists)
//   runs at the first instant its wall time is shown; a wall time the clock
//   skips runs at the instant it had on the clock before the change;
// - a job whose minute or hour field repeats (`*` or a step) runs at every
//   instant whose wall time matches: both copies of a repeated hour, nothing
//   in a skipped one;
// - runs on the same instant are one run.

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cronShapeProblem, nextCronTime } from "../src/cron.js";
import { ZONE_ALIASES } from "./zone-aliases.js";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const YEARS = { from: Date.UTC(2026, 0, 1), until: Date.UTC(2031, 0, 1) };
/** Cases per clock change, in zones Intl lists and under their other names. */
const CASES_PER_CHANGE = { listed: 3, otherName: 1 };
/** Runs compared per case. */
const RUNS_COMPARED = 5;

// ---- the model's clock --------------------------------------------------------

const clocks = new Map<string, Intl.DateTimeFormat>();
/** The wall clock of `tz` at instant `t`, as the UTC instant with the same reading (whole seconds). */
function wallAt(tz: string, t: number): number {
  let clock = clocks.get(tz);
  if (clock === undefined) {
    const parts = { year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit" } as const;
    clock = new Intl.DateTimeFormat("sv-SE", { timeZone: tz, hourCycle: "h23", ...parts });
    clocks.set(tz, clock);
  }
  // sv-SE reads "2026-03-08 03:00:00".
  const wall = Date.parse(`${clock.format(t).replace(" ", "T")}Z`);
  if (Number.isNaN(wall)) throw new Error(`unreadable wall clock ${clock.format(t)} in ${tz}`);
  return wall;
}

const offsetAt = (tz: string, t: number) => wallAt(tz, t) - t;

/** First instants on a new clock, 2026–2030: sampled daily, then narrowed to the minute. */
function clockChanges(tz: string): number[] {
  const changes: number[] = [];
  let previous = offsetAt(tz, YEARS.from);
  for (let day = YEARS.from + DAY; day <= YEARS.until; day += DAY) {
    const offset = offsetAt(tz, day);
    if (offset === previous) continue;
    let [old, changed] = [day - DAY, day];
    while (changed - old > MINUTE) {
      const mid = old + Math.floor((changed - old) / 2 / MINUTE) * MINUTE;
      if (offsetAt(tz, mid) === previous) old = mid;
      else changed = mid;
    }
    changes.push(changed);
    previous = offset;
  }
  return changes;
}

// Names of one zone share its data, so each zone is searched once.
const changesByZone = new Map<string, number[]>();
const LISTED = new Set(Intl.supportedValuesOf("timeZone"));
const ZONES = [...new Set([...LISTED, ...ZONE_ALIASES])]
  .map((name) => {
    const zone = new Intl.DateTimeFormat("en-US", { timeZone: name }).resolvedOptions().timeZone;
    let changes = changesByZone.get(zone);
    if (changes === undefined) {
      changes = clockChanges(zone);
      changesByZone.set(zone, changes);
    }
    return { name, changes, cases: LISTED.has(name) ? CASES_PER_CHANGE.listed : CASES_PER_CHANGE.otherName };
  })
  .filter((z) => z.changes.length > 0);

// ---- the model's matcher --------------------------------------------------------

/** Values of one field as the test writes them: `*`, `a`, `a-b`, `*\/s`, `a/s`, `a-b/s`, and lists of these. */
function values(field: string, min: number, max: number): Set<number> {
  const out = new Set<number>();
  for (const part of field.split(",")) {
    const [range = "", stepText] = part.split("/");
    const step = stepText === undefined ? 1 : Number(stepText);
    const [lo, hi] =
      range === "*" ? [min, max] : range.includes("-") ? range.split("-").map(Number) : [Number(range), stepText === undefined ? Number(range) : max];
    for (let v = lo ?? min; v <= (hi ?? max); v += step) out.add(v);
  }
  return out;
}

interface Model {
  matches(wall: number): boolean;
  fixed: boolean;
}

function model(expr: string): Model {
  const [minute = "", hour = "", dom = "", month = "", dow = ""] = expr.split(" ");
  const sets = {
    minute: values(minute, 0, 59),
    hour: values(hour, 0, 23),
    dom: values(dom, 1, 31),
    month: values(month, 1, 12),
    dow: values(dow, 0, 7),
  };
  if (sets.dow.has(7)) sets.dow.add(0);
  // Both day fields restricted: either may match (classic cron).
  const domAny = dom === "*";
  const dowAny = dow === "*";
  return {
    fixed: /^[\d,-]+$/.test(minute) && /^[\d,-]+$/.test(hour),
    matches(wall) {
      const d = new Date(wall);
      if (!sets.minute.has(d.getUTCMinutes()) || !sets.hour.has(d.getUTCHours()) || !sets.month.has(d.getUTCMonth() + 1)) {
        return false;
      }
      const byDom = sets.dom.has(d.getUTCDate());
      const byDow = sets.dow.has(d.getUTCDay());
      if (domAny && dowAny) return true;
      if (domAny) return byDow;
      if (dowAny) return byDom;
      return byDom || byDow;
    },
  };
}

/** Wall clock of each minute from `start` (the minute before the first one looked at) to `end`. */
function wallTable(tz: string, start: number, end: number): number[] {
  const table: number[] = [];
  for (let t = start; t <= end; t += MINUTE) table.push(wallAt(tz, t));
  return table;
}

/** The model's runs in (after, end], walking real minutes from `start` (a few hours before `after`). */
function modelRuns(expr: string, walls: number[], start: number, after: number, end: number): number[] {
  const { matches, fixed } = model(expr);
  const runs = new Set<number>();
  let shownUpTo = walls[0] ?? 0;
  for (let i = 1; i < walls.length; i++) {
    const t = start + i * MINUTE;
    if (t > end) break;
    const wall = walls[i] ?? 0;
    const previous = walls[i - 1] ?? 0;
    // The clock jumped forward: a fixed-time job runs each skipped wall time
    // as late past this minute as the clock before the change would have shown it.
    if (fixed) {
      for (let skipped = previous + MINUTE; skipped < wall; skipped += MINUTE) {
        if (matches(skipped)) runs.add(t - MINUTE + (skipped - previous));
      }
    }
    // A repeat (the clock went back) runs only for jobs whose minute or hour repeats.
    if (matches(wall) && (!fixed || wall > shownUpTo)) runs.add(t);
    shownUpTo = Math.max(shownUpTo, wall);
  }
  return [...runs].filter((r) => r > after && r <= end).sort((a, b) => a - b);
}

function productionRuns(expr: string, tz: string, after: number, end: number): number[] {
  const runs: number[] = [];
  let from = after;
  while (runs.length < RUNS_COMPARED) {
    const run = nextCronTime(expr, tz, new Date(from)).getTime();
    if (run > end) break;
    runs.push(run);
    from = run;
  }
  return runs;
}

// ---- random expressions near one clock change -----------------------------------

function expressionsNear(tz: string, change: number): fc.Arbitrary<string> {
  const before = new Date(wallAt(tz, change - MINUTE));
  const after = new Date(wallAt(tz, change));
  const hours = [...new Set([before.getUTCHours(), after.getUTCHours()].flatMap((h) => [h - 1, h, h + 1]))].map((h) => (h + 24) % 24);
  const minute = fc.oneof(fc.constantFrom(0, 15, 30, 45, 59, before.getUTCMinutes(), after.getUTCMinutes()), fc.nat(59));
  const hour = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...hours) }, fc.nat(23));
  const item = (value: fc.Arbitrary<number>, max: number) =>
    fc.oneof(
      fc.constant("*"),
      value.map(String),
      value.map(String),
      fc.tuple(value, value).map(([a, b]) => `${Math.min(a, b)}-${Math.max(a, b)}`),
      fc.integer({ min: 1, max }).map((s) => `*/${s}`),
      fc.tuple(value, fc.integer({ min: 1, max })).map(([a, s]) => `${a}/${s}`),
      fc.tuple(value, value, fc.integer({ min: 1, max })).map(([a, b, s]) => `${Math.min(a, b)}-${Math.max(a, b)}/${s}`),
    );
  const field = (value: fc.Arbitrary<number>, max: number) =>
    fc.oneof(
      { weight: 7, arbitrary: item(value, max) },
      fc.uniqueArray(value, { minLength: 2, maxLength: 4 }).map((list) => list.join(",")),
      // Items that may overlap (`*/15,30`, `1-5,3`): the list is their union.
      fc.array(item(value, max), { minLength: 2, maxLength: 3 }).map((list) => list.join(",")),
    );
  const days = [before, after];
  const dom = fc.oneof(
    { weight: 6, arbitrary: fc.constant("*") },
    fc.constantFrom(...days.map((d) => String(d.getUTCDate()))),
    fc.integer({ min: 1, max: 28 }).map(String),
    fc.constantFrom("1-15", "*/2", "10-31"),
  );
  const month = fc.oneof({ weight: 6, arbitrary: fc.constant("*") }, fc.constantFrom(...days.map((d) => String(d.getUTCMonth() + 1))));
  const dow = fc.oneof(
    { weight: 6, arbitrary: fc.constant("*") },
    fc.constantFrom(...days.map((d) => String(d.getUTCDay()))),
    fc.constantFrom("1-5", "0,6", "7", "5-7", "0,7", "1-5,3", "6-7,0"),
  );
  return fc
    .tuple(field(minute, 59), field(hour, 23), dom, month, dow)
    .map((fields) => fields.join(" "))
    .filter((expr) => cronShapeProblem(expr) === null); // not e.g. 31 in a month of 30 days
}

const iso = (t: number) => new Date(t).toISOString();

describe("daylight-saving rule, every zone with clock changes in 2026–2030", () => {
  it("finds the zones, their other names and the unusual shifts", () => {
    const names = ZONES.map((z) => z.name);
    for (const tz of [
      "America/New_York", "US/Eastern", "Europe/Berlin", "Australia/Lord_Howe", "Australia/LHI", "Pacific/Chatham", "NZ-CHAT",
      "America/St_Johns", "Asia/Gaza", "Asia/Hebron", "Antarctica/Troll", "Africa/Casablanca", "America/Santiago",
    ]) {
      expect(names).toContain(tz);
    }
    expect(names).not.toContain("Asia/Kolkata");
    expect(ZONES.length).toBeGreaterThan(150);
  });

  it("sees every clock change months apart, as nextCronTime assumes (it looks one day either side)", () => {
    const close = ZONES.flatMap(({ name, changes }) =>
      changes.slice(1).flatMap((c, i) => (c - (changes[i] ?? 0) < 7 * DAY ? [`${name} ${iso(changes[i] ?? 0)} ${iso(c)}`] : [])),
    );
    expect(close).toEqual([]);
  });

  it.each(ZONES.map((z) => [z.name, z] as const))("%s", (tz, { changes, cases }) => {
    for (const change of changes) {
      // The model walks from 3 hours before the change (enough to see the
      // first copy of any repeated hour; the longest repeat is 2 hours, in
      // Antarctica/Troll) to 6 hours after it.
      const start = change - 3 * HOUR;
      const walls = wallTable(tz, start, change + 6 * HOUR);
      const afterArb = fc
        .tuple(fc.integer({ min: -90, max: 60 }), fc.constantFrom(0, 0, 1, 30_000, 59_999))
        .map(([minutes, ms]) => change + minutes * MINUTE + ms);
      fc.assert(
        fc.property(expressionsNear(tz, change), afterArb, (expr, after) => {
          const end = after + 4 * HOUR;
          const expected = modelRuns(expr, walls, start, after, end).slice(0, RUNS_COMPARED);
          const got = productionRuns(expr, tz, after, end);
          expect(got.map(iso), `"${expr}" in ${tz} after ${iso(after)}`).toEqual(expected.map(iso));
        }),
        { numRuns: cases },
      );
    }
  });
});
