import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ApiError } from "../src/errors.js";
import { isPastDated, parseScheduledAt, type ScheduledAt } from "../src/scheduled-at.js";

const NOW = new Date("2026-05-10T12:34:56.789Z");
const PREFIXES = ["Invalid date: ", "Unknown pipe operation: ", "Invalid duration: ", "Invalid cron expression: "];

const once = (raw: string, now = NOW) => {
  const r = parseScheduledAt(raw, now);
  if (r.kind !== "once") throw new Error(`expected once, got ${JSON.stringify(r)}`);
  return r;
};
const iso = (raw: string) => once(raw).at.toISOString();

/** The BadRequest message `raw` is rejected with. */
const rejection = (raw: string | undefined): string => {
  try {
    parseScheduledAt(raw, NOW);
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).tag).toBe("BadRequest");
    expect((err as ApiError).status).toBe(400);
    return (err as ApiError).message;
  }
  throw new Error(`accepted: ${raw}`);
};

describe("dates (docs/scheduled-at.md)", () => {
  it.each([
    ["2026-11-22T10:00:00Z", "2026-11-22T10:00:00.000Z"],
    ["2026-11-22T10:00:00z", "2026-11-22T10:00:00.000Z"],
    ["2026-11-22T10:00:00.5+02:00", "2026-11-22T08:00:00.000Z"],
    ["2026-11-22T10:00:00+0200", "2026-11-22T08:00:00.000Z"],
    ["2026-11-22T10:00:00+02", "2026-11-22T08:00:00.000Z"],
    ["2026-11-22T10:00:00-05:30", "2026-11-22T15:30:00.000Z"],
    ["2026-11-22T10:00:00-00:00", "2026-11-22T10:00:00.000Z"],
    ["2026-11-22", "2026-11-22T00:00:00.000Z"],
    ["2026-11-22T10:00:00", "2026-11-22T10:00:00.000Z"],
    ["2026-11-22T10:00", "2026-11-22T10:00:00.000Z"],
    ["2026-11-22T10:00Z", "2026-11-22T10:00:00.000Z"],
    ["2026-11-22t10:00:00Z", "2026-11-22T10:00:00.000Z"],
    ["2026-11-22 10:00:00Z", "2026-11-22T10:00:00.000Z"],
    ["2026-11-22T10:00:00,25Z", "2026-11-22T10:00:00.000Z"],
    ["2026-11-22T10:00:00.999999999999Z", "2026-11-22T10:00:00.000Z"],
    ["2026-11-22T23:59:59.999Z", "2026-11-22T23:59:59.000Z"],
    ["2026-01-01T00:30:00+01:00", "2025-12-31T23:30:00.000Z"],
    ["2028-02-29T12:00:00Z", "2028-02-29T12:00:00.000Z"],
    ["2000-02-29", "2000-02-29T00:00:00.000Z"],
    ["1969-12-31T23:59:59.999Z", "1969-12-31T23:59:59.000Z"],
    ["0050-06-01", "0050-06-01T00:00:00.000Z"],
    ["0001-01-01T00:00:00Z", "0001-01-01T00:00:00.000Z"],
    ["9999-12-31T23:59:59.999Z", "9999-12-31T23:59:59.000Z"],
    ["  2026-11-22T10:00:00Z  ", "2026-11-22T10:00:00.000Z"],
  ])("%s → %s", (raw, expected) => {
    expect(iso(raw)).toBe(expected);
    expect(once(raw).nowBased).toBe(false);
  });

  it.each([
    "2026-02-30", "2026-02-29", "1900-02-29", "2026-04-31", "2026-13-01", "2026-00-10", "2026-01-00",
    "2026-11-22T24:00:00Z", "2026-11-22T10:60:00Z", "2026-11-22T10:00:60Z", "2026-11-22T10:00:00+24:00",
    "2026-11-22T10:00:00+02:60", "2026-11-22T10:00:00+020", "2026-11-22T10Z", "2026-11-22T10:00.5Z",
    "2026-11-22T10:00:00.Z", "2026-11-22Z", "2026-1-2", "26-11-22", "+002026-11-22", "20261122T100000Z",
    "0000-01-01T00:00:00Z", "0000-06-01", "0001-01-01T00:30:00+01:00", "9999-12-31T23:59:59-00:01", "1", "1767225600", "March 7 2026",
    "Sun, 22 Nov 2026 10:00:00 GMT", "NOW", "Now", "tomorrow", "2026-11-22T10:00:00 Z",
  ])("rejects %j", (raw) => {
    expect(rejection(raw)).toBe(`Invalid date: ${raw}`);
  });

  it("quotes the whole value as sent, including pipes and spaces", () => {
    expect(rejection(" soon | add 5s ")).toBe("Invalid date:  soon | add 5s ");
    expect(rejection("2026-02-30 | nonsense")).toBe("Invalid date: 2026-02-30 | nonsense");
  });

  it("treats missing, empty and blank values as invalid dates", () => {
    expect(rejection(undefined)).toBe("Invalid date: ");
    expect(rejection("")).toBe("Invalid date: ");
    expect(rejection("   ")).toBe("Invalid date:    ");
    expect(rejection("| add 5s")).toBe("Invalid date: | add 5s");
  });
});

describe("now and pipe operations", () => {
  it("now is the clock truncated to the second and marked now-based", () => {
    expect(once("now")).toEqual({ kind: "once", at: new Date("2026-05-10T12:34:56.000Z"), nowBased: true, fractionMs: 0 });
  });

  it("keeps the dropped fraction of a date for the past-dated check, which compares the time as written", () => {
    expect(once("2026-05-10T12:34:56.800Z")).toEqual({ kind: "once", at: new Date("2026-05-10T12:34:56.000Z"), nowBased: false, fractionMs: 800 });
    expect(once("2026-05-10 12:34:56,25+00:00 | add 1s").fractionMs).toBe(250);
    expect(once("2026-05-10").fractionMs).toBe(0);
    // NOW is 12:34:56.789
    expect(isPastDated(once("2026-05-10T12:34:56.790Z"), NOW)).toBe(false);
    expect(isPastDated(once("2026-05-10T12:34:56.789Z"), NOW)).toBe(true);
    expect(isPastDated(once("2026-05-10T12:34:56Z"), NOW)).toBe(true);
    expect(isPastDated(once("2026-05-10T12:34:57Z | subtract 1s"), NOW)).toBe(true);
  });

  it("truncates a pre-1970 clock toward the past", () => {
    expect(once("now", new Date(-1)).at.toISOString()).toBe("1969-12-31T23:59:59.000Z");
    expect(once("now", new Date(-1000)).at.getTime()).toBe(-1000);
  });

  it.each([
    ["now | add 5s", "2026-05-10T12:35:01.000Z"],
    ["now|add 5s", "2026-05-10T12:35:01.000Z"],
    ["now | add\t5s", "2026-05-10T12:35:01.000Z"],
    ["now | add   5s", "2026-05-10T12:35:01.000Z"],
    ["now | subtract 1m", "2026-05-10T12:33:56.000Z"],
    ["now | add -5m", "2026-05-10T12:29:56.000Z"],
    ["now | subtract -5m", "2026-05-10T12:39:56.000Z"],
    ["now | add +2h", "2026-05-10T14:34:56.000Z"],
    ["now | add 1d", "2026-05-11T12:34:56.000Z"],
    ["now | add 2w", "2026-05-24T12:34:56.000Z"],
    ["now | add 0s", "2026-05-10T12:34:56.000Z"],
    ["now | add 007s", "2026-05-10T12:35:03.000Z"],
    ["now | add 1d | subtract 1h | add 30m", "2026-05-11T12:04:56.000Z"],
  ])("%s → %s", (raw, expected) => {
    expect(iso(raw)).toBe(expected);
    expect(once(raw).nowBased).toBe(true);
  });

  it("applies operations to a date too, left to right, and keeps it not now-based", () => {
    expect(iso("2026-11-22 | add 10h | subtract 30m")).toBe("2026-11-22T09:30:00.000Z");
    expect(iso(" 2026-11-22T10:00:00.9Z | add 1s ")).toBe("2026-11-22T10:00:01.000Z");
    expect(once("2026-11-22 | add 1d").nowBased).toBe(false);
    // Days are 86400 s: no calendar or DST arithmetic in UTC.
    expect(iso("2026-02-28 | add 1d")).toBe("2026-03-01T00:00:00.000Z");
  });

  it.each([
    ["now | ADD 5s", "ADD 5s"],
    ["now | Add 5s", "Add 5s"],
    ["now | add", "add"],
    ["now | subtract", "subtract"],
    ["now | add5s", "add5s"],
    ["now | multiply 2s", "multiply 2s"],
    ["now | plus 5s", "plus 5s"],
    ["now |", ""],
    ["now || add 5s", ""],
    ["now | add 5s |", ""],
    ["now | 5s", "5s"],
  ])("%j → Unknown pipe operation: %s", (raw, op) => {
    expect(rejection(raw)).toBe(`Unknown pipe operation: ${op}`);
  });

  it.each([
    ["now | add 5", "5"],
    ["now | add s", "s"],
    ["now | add 5x", "5x"],
    ["now | add 5S", "5S"],
    ["now | add 5M", "5M"],
    ["now | add 5 s", "5 s"],
    ["now | add 1.5h", "1.5h"],
    ["now | add 1e3s", "1e3s"],
    ["now | add --5s", "--5s"],
    ["now | add 5y", "5y"],
    ["now | add 5ms", "5ms"],
    ["now | subtract five minutes", "five minutes"],
    ["now | add 5s 5m", "5s 5m"],
  ])("%j → Invalid duration: %s", (raw, amount) => {
    expect(rejection(raw)).toBe(`Invalid duration: ${amount}`);
  });

  it("reports the amount that takes the time out of years 0000–9999", () => {
    expect(rejection("9999-12-31 | add 1d")).toBe("Invalid duration: 1d");
    expect(rejection("now | add 1d | add 99999999w")).toBe("Invalid duration: 99999999w");
    expect(rejection("now | subtract 99999999999999999999999999s")).toBe(
      "Invalid duration: 99999999999999999999999999s",
    );
    expect(rejection(`now | add ${"9".repeat(400)}d`)).toBe(`Invalid duration: ${"9".repeat(400)}d`);
    // Back in range by the end does not help: each step must be a real time.
    expect(rejection("9999-12-31 | add 1d | subtract 1d")).toBe("Invalid duration: 1d");
  });

  it("checks in the order of docs/scheduled-at.md: date, then every operation name, then every amount", () => {
    expect(rejection("bogus | multiply 2s | add 5x")).toBe("Invalid date: bogus | multiply 2s | add 5x");
    expect(rejection("now | add 5x | multiply 2s")).toBe("Unknown pipe operation: multiply 2s");
    expect(rejection("now | add 5x | add 6y")).toBe("Invalid duration: 5x");
  });
});

describe("cron(<expr>[, <timezone>])", () => {
  const cron = (raw: string): ScheduledAt => parseScheduledAt(raw, NOW);

  it.each([
    ["cron(0 9 * * *)", "0 9 * * *", "UTC"],
    ["cron(0 9 * * *, Europe/Berlin)", "0 9 * * *", "Europe/Berlin"],
    ["cron(0 9 * * *,Europe/Berlin)", "0 9 * * *", "Europe/Berlin"],
    ["  cron(  0   9 * *   * ,  America/New_York )  ", "0 9 * * *", "America/New_York"],
    ["cron(0 9,17 * * MON,TUE)", "0 9,17 * * MON,TUE", "UTC"],
    ["cron(0 9,17 * * MON,TUE, Asia/Tokyo)", "0 9,17 * * MON,TUE", "Asia/Tokyo"],
    ["cron(0 9,17 * * MON,TUE,Asia/Tokyo)", "0 9,17 * * MON,TUE", "Asia/Tokyo"],
    ["cron(*/5 * * * *)", "*/5 * * * *", "UTC"],
    ["cron(0 0 L * *)", "0 0 L * *", "UTC"],
    ["cron(0 0 * * THU)", "0 0 * * THU", "UTC"],
    ["cron(0 0 29 2 *)", "0 0 29 2 *", "UTC"],
    // The zone comes back exactly as written, even where Intl knows it by another name.
    ["cron(0 9 * * *, europe/berlin)", "0 9 * * *", "europe/berlin"],
    ["cron(0 9 * * *, utc)", "0 9 * * *", "utc"],
    ["cron(0 9 * * *, Asia/Kolkata)", "0 9 * * *", "Asia/Kolkata"],
    ["cron(0 9 * * *, Asia/Calcutta)", "0 9 * * *", "Asia/Calcutta"],
    ["cron(0 9 * * *, US/Eastern)", "0 9 * * *", "US/Eastern"],
    ["cron(0 9 * * *, Europe/Kyiv)", "0 9 * * *", "Europe/Kyiv"],
    ["cron(0 9 * * *, Etc/GMT+5)", "0 9 * * *", "Etc/GMT+5"],
  ])("%s", (raw, expr, tz) => {
    expect(cron(raw)).toEqual({ kind: "cron", expr, tz });
  });

  it.each([
    ["cron(0 0 * * * *)", /^Invalid cron expression: expected 5 fields .* got 6 in "0 0 \* \* \* \*"$/],
    ["cron(* * * *)", /expected 5 fields .* got 4/],
    ["cron()", /expected 5 fields .* got 0/],
    ["cron(@daily)", /^Invalid cron expression: macros such as @daily are not supported/],
    ["cron(60 * * * *)", /^Invalid cron expression: Constraint error, got value 60 expected range 0-59/],
    ["cron(a b c d e)", /^Invalid cron expression: Invalid characters/],
    ["cron(H * * * *)", /^Invalid cron expression: hashed values \(H\) are not supported/],
    ["cron(0 0 30 2 *)", /^Invalid cron expression: .*day of month/],
    ["cron(0 0 31 4,6 *)", /^Invalid cron expression: /],
    ["cron(0 9 * * *, Mars/Olympus)", /^Invalid cron expression: unknown time zone "Mars\/Olympus"$/],
    ["cron(0 9 * * *, +02:00)", /^Invalid cron expression: unknown time zone "\+02:00"$/],
    ["cron(0 9 * * *,)", /^Invalid cron expression: missing time zone/],
    ["cron(0 61 * * *, Europe/Berlin)", /got value 61/],
    ["cron(0 9 * * *", /^Invalid cron expression: expected cron\(<expr>\[, <timezone>\]\)/],
    ["cron(0 9 * * *) | add 5s", /^Invalid cron expression: expected cron\(/],
  ])("%s", (raw, message) => {
    expect(rejection(raw)).toMatch(message);
  });

  // The expression may hold commas of its own, so when neither reading of
  // the text after the last comma passes, the error is that of the reading
  // the caller meant: a zone only when the text can be nothing else.
  it.each([
    ["cron(61 9,17 * * *)", 'Constraint error, got value 61 expected range 0-59 in "61 9,17 * * *"'],
    ["cron(0 9,17 * * MON,TUX)", 'Validation error, cannot resolve alias "tux" in "0 9,17 * * MON,TUX"'],
    ["cron(0 0 31 2,4 *)", 'Invalid explicit day of month definition in "0 0 31 2,4 *"'],
    ["cron(0 9 * * MON,Foo)", 'Validation error, cannot resolve alias "foo" in "0 9 * * MON,Foo"'],
    ["cron(0 9 * * 1,JAN/2)", 'Validation error, cannot resolve alias "jan" in "0 9 * * 1,JAN/2"'],
    ["cron(0 9,17 * * MON,TUX, Europe/Berlin)", 'Validation error, cannot resolve alias "tux" in "0 9,17 * * MON,TUX"'],
    ["cron(0 9 * *, UTC)", 'expected 5 fields (minute hour day-of-month month day-of-week), got 4 in "0 9 * *"'],
    ["cron(0 0 * * *, UTC, UTC)", 'expected 5 fields (minute hour day-of-month month day-of-week), got 6 in "0 0 * * *, UTC"'],
    ["cron(0 9 * * *, Mars/Olympus)", 'unknown time zone "Mars/Olympus"'],
    ["cron(0 9 * * *,Mars/Olympus)", 'unknown time zone "Mars/Olympus"'],
    ["cron(0 9 * * *, Foo)", 'unknown time zone "Foo"'],
    ["cron(0 9 * * *,+02:00)", 'unknown time zone "+02:00"'],
    ["cron(0 9 * * *, )", "missing time zone after the comma"],
  ])("a comma inside %s: the error of the reading meant", (raw, details) => {
    expect(rejection(raw)).toBe(`Invalid cron expression: ${details}`);
  });

  it.each([
    // EST is a zone, not a weekday: Monday 09:00 in EST.
    ["cron(0 9 * * MON,EST)", "0 9 * * MON", "EST"],
    ["cron(0 9 * * 1,Etc/GMT+5)", "0 9 * * 1", "Etc/GMT+5"],
    ["cron(0 0 * * MON-SUN)", "0 0 * * MON-SUN", "UTC"],
    ["cron(0 0 * * sat-sun,Europe/Berlin)", "0 0 * * sat-sun", "Europe/Berlin"],
  ])("%s", (raw, expr, tz) => {
    expect(cron(raw)).toEqual({ kind: "cron", expr, tz });
  });

  it("is case-sensitive: CRON(...) is not a cron value", () => {
    expect(rejection("CRON(0 9 * * *)")).toBe("Invalid date: CRON(0 9 * * *)");
  });
});

describe("properties", () => {
  const anyText = fc.oneof(
    fc.string({ unit: "binary" }),
    fc.string({ unit: "grapheme" }),
    // Strings built from the grammar's own pieces reach the deeper checks.
    fc
      .array(
        fc.constantFrom("now", "cron(", ")", "|", "add", "subtract", " ", ",", "5s", "-3w", "2026-11-22", "T10:00",
          ":00", "Z", "+02:00", ".5", "*", "0", "9", "Europe/Berlin", "@daily", "H", "L", "#", "/"),
        { maxLength: 12 },
      )
      .map((parts) => parts.join("")),
  );

  it("random input either parses or fails with one of the four messages", () => {
    fc.assert(
      fc.property(anyText, (raw) => {
        try {
          const r = parseScheduledAt(raw, NOW);
          if (r.kind === "once") expect(Math.abs(r.at.getTime() % 1000)).toBe(0);
        } catch (err) {
          expect(err).toBeInstanceOf(ApiError);
          const { tag, message } = err as ApiError;
          expect(tag).toBe("BadRequest");
          expect(PREFIXES.some((p) => message.startsWith(p))).toBe(true);
        }
      }),
      { numRuns: 3000 },
    );
  });

  const inRange = fc.date({
    min: new Date("0001-01-01T00:00:00.000Z"),
    max: new Date("9999-12-31T23:59:59.999Z"),
    noInvalidDate: true,
  });

  it("any in-range time written as ISO 8601 reads back, truncated to the second", () => {
    fc.assert(
      fc.property(inRange, (d) => {
        expect(once(d.toISOString()).at.getTime()).toBe(Math.floor(d.getTime() / 1000) * 1000);
      }),
    );
  });

  it("reads offsets, compact offsets and missing seconds consistently", () => {
    const offset = fc.record({ sign: fc.constantFrom(1, -1), h: fc.integer({ min: 0, max: 14 }), m: fc.constantFrom(0, 30, 45) });
    const mid = fc.date({ min: new Date("1000-01-01T00:00:00Z"), max: new Date("9000-01-01T00:00:00Z"), noInvalidDate: true });
    fc.assert(
      fc.property(mid, offset, fc.boolean(), (d, { sign, h, m }, compact) => {
        const minutes = sign * (h * 60 + m);
        const local = new Date(d.getTime() + minutes * 60_000).toISOString().slice(0, 23);
        const pad = (n: number) => String(n).padStart(2, "0");
        const suffix = `${sign < 0 ? "-" : "+"}${pad(h)}${compact ? "" : ":"}${pad(m)}`;
        expect(once(local + suffix).at.getTime()).toBe(Math.floor(d.getTime() / 1000) * 1000);
        expect(once(local.slice(0, 16) + suffix).at.getTime()).toBe(Math.floor(d.getTime() / 60_000) * 60_000);
      }),
    );
  });

  it("now | add Ns | subtract Ns is now (to the second), for any unit", () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date("1000-01-01T00:00:00Z"), max: new Date("9000-01-01T00:00:00Z"), noInvalidDate: true }),
        fc.integer({ min: -50_000, max: 50_000 }), // 50,000 weeks is 958 years: stays in range
        fc.constantFrom("s", "m", "h", "d", "w"),
        (now, n, unit) => {
          const r = once(`now | add ${n}${unit} | subtract ${n}${unit}`, now);
          expect(r.at.getTime()).toBe(Math.floor(now.getTime() / 1000) * 1000);
          expect(r.nowBased).toBe(true);
        },
      ),
    );
  });

  it("truncation never rounds up, before or after 1970", () => {
    fc.assert(
      fc.property(inRange, (now) => {
        const at = once("now", now).at.getTime();
        expect(at).toBeLessThanOrEqual(now.getTime());
        expect(now.getTime() - at).toBeLessThan(1000);
        expect(at % 1000 === 0).toBe(true);
      }),
    );
  });
});
