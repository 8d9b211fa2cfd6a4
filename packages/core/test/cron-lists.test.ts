// Cron lists whose items overlap (`0,7`, `MON-FRI,WED`, `*/15,30`): taken,
// and run at the union of their items, as cron does (docs/cron.md); and a
// `?` outside the day fields in a schedule stored before it was refused.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkCron, nextCronTimes } from "../src/cron.js";

const at = (iso: string) => new Date(iso);
const isoList = (dates: Date[]) => dates.map((d) => d.toISOString());

describe("lists whose items overlap", () => {
  const NOW = at("2026-05-10T12:00:00Z");
  const NY = "America/New_York";

  it.each([
    ["0 0 * * 0,7", "0 0 * * 0"],
    ["0 0 * * SUN,7", "0 0 * * 0"],
    ["0 0 * * 1-7,0", "0 0 * * 0-6"],
    ["0 0 * * MON-FRI,WED", "0 0 * * MON-FRI"],
    ["0 0 * * MON-SUN,sun", "0 0 * * 0-6"],
    ["0 0 * * 5L,5L,1", "0 0 * * 1,5L"],
    ["*/15,30 * * * *", "*/15 * * * *"],
    ["0,0 * * * *", "0 * * * *"],
    ["0 0 1-10,5 * *", "0 0 1-10 * *"],
    ["0 0 L,L,31 * *", "0 0 L,31 * *"],
    ["0 9-17,12 * JAN-MAR,FEB,3 *", "0 9-17 * 1-3 *"],
    // Still repeating (a step), so both copies of 01:xx run on 1 November.
    ["0-40/10,*/20 1 * * *", "0-40/10 1 * * *"],
    // Still fixed: the first copy only.
    ["30,30 1 * * *", "30 1 * * *"],
  ])("%s is accepted, kept as written, and runs as %s", (expr, same) => {
    expect(checkCron(expr, NY, NOW)).toEqual({ expr, tz: NY });
    // From 00:30 EDT on 1 November 2026, an hour and a half before New York sets its clock back.
    const after = at("2026-11-01T04:30:00Z");
    expect(isoList(nextCronTimes(expr, NY, after, 12))).toEqual(isoList(nextCronTimes(same, NY, after, 12)));
  });

  /** The values of one field as the test reads them: lists of `*`, `a`, `a-b`, `*\/s`, `a/s`, `a-b/s`. */
  const values = (field: string, min: number, max: number): number[] => {
    const out = new Set<number>();
    for (const item of field.split(",")) {
      const [range = "", stepText] = item.split("/");
      const step = stepText === undefined ? 1 : Number(stepText);
      const [lo = min, hi = max] =
        range === "*" ? [min, max] : range.includes("-") ? range.split("-").map(Number) : [Number(range), stepText === undefined ? Number(range) : max];
      for (let v = lo; v <= hi; v += step) out.add(v === 7 && max === 7 ? 0 : v);
    }
    return [...out].sort((a, b) => a - b);
  };

  it("runs at the union of the items, whatever they are", () => {
    const item = (min: number, max: number) => {
      const value = fc.integer({ min, max });
      return fc.oneof(
        fc.constant("*"),
        value.map(String),
        fc.tuple(value, value).map(([a, b]) => `${Math.min(a, b)}-${Math.max(a, b)}`),
        fc.integer({ min: 1, max }).map((s) => `*/${s}`),
        fc.tuple(value, fc.integer({ min: 1, max })).map(([a, s]) => `${a}/${s}`),
        fc.tuple(value, value, fc.integer({ min: 1, max })).map(([a, b, s]) => `${Math.min(a, b)}-${Math.max(a, b)}/${s}`),
      );
    };
    const list = (min: number, max: number) => fc.array(item(min, max), { minLength: 1, maxLength: 4 }).map((items) => items.join(","));
    const bounds: [number, number][] = [[0, 59], [0, 23], [1, 31], [1, 12], [0, 7]];
    fc.assert(
      fc.property(
        // Days of month up to 28 only, so that every month has them (`*` is still up to 31).
        fc.tuple(...bounds.map(([min, max]) => list(min, max === 31 ? 28 : max))),
        fc.date({ min: at("2020-01-01T00:00:00Z"), max: at("2040-01-01T00:00:00Z"), noInvalidDate: true }),
        (fields, after) => {
          const expr = fields.join(" ");
          // Each field as the plain list of its values; `*` stays `*` (an unrestricted day field).
          const union = fields.map((f, i) => (f === "*" ? f : values(f, ...(bounds[i] ?? [0, 0])).join(","))).join(" ");
          expect(checkCron(expr, "UTC", after).expr).toBe(expr);
          expect(isoList(nextCronTimes(expr, "UTC", after, 5)), expr).toEqual(isoList(nextCronTimes(union, "UTC", after, 5)));
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe("? outside the day fields, in a schedule stored before it was refused", () => {
  it("repeats as * does around a clock change", () => {
    const after = at("2026-10-31T12:00:00Z"); // New York sets its clock back on 1 November
    expect(isoList(nextCronTimes("? 1 * * *", "America/New_York", after, 130))).toEqual(
      isoList(nextCronTimes("* 1 * * *", "America/New_York", after, 130)),
    );
  });
});
