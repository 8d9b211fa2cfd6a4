import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { skipThroughOnCancel } from "../src/cron-next.js";
import { checkCron, cronShapeProblem, nextCronTime, nextCronTimes, timeZoneProblem } from "../src/cron.js";
import { ApiError } from "../src/errors.js";

const at = (iso: string) => new Date(iso);
const isoList = (dates: Date[]) => dates.map((d) => d.toISOString());
const next = (expr: string, tz: string, after: string) => nextCronTime(expr, tz, at(after)).toISOString();

describe("nextCronTime", () => {
  it("is strictly after `after`, even exactly on a run", () => {
    expect(next("0 0 * * *", "UTC", "2026-01-01T00:00:00Z")).toBe("2026-01-02T00:00:00.000Z");
    expect(next("* * * * *", "UTC", "2026-01-01T00:00:00Z")).toBe("2026-01-01T00:01:00.000Z");
  });

  it("ignores milliseconds and seconds of `after`", () => {
    expect(next("* * * * *", "UTC", "2026-01-01T00:00:59.999Z")).toBe("2026-01-01T00:01:00.000Z");
    expect(next("* * * * *", "UTC", "2026-01-01T00:00:00.001Z")).toBe("2026-01-01T00:01:00.000Z");
  });

  it("reads the expression in the time zone", () => {
    // Berlin is UTC+1 in winter, UTC+2 in summer.
    expect(next("0 9 * * *", "Europe/Berlin", "2026-01-10T00:00:00Z")).toBe("2026-01-10T08:00:00.000Z");
    expect(next("0 9 * * *", "Europe/Berlin", "2026-07-10T00:00:00Z")).toBe("2026-07-10T07:00:00.000Z");
    expect(next("0 9 * * *", "Asia/Kolkata", "2026-01-10T00:00:00Z")).toBe("2026-01-10T03:30:00.000Z");
  });

  it("handles lists, names, L and leap days", () => {
    expect(isoList(nextCronTimes("0 9,17 * * MON,TUE", "UTC", at("2026-01-01T00:00:00Z"), 3))).toEqual([
      "2026-01-05T09:00:00.000Z",
      "2026-01-05T17:00:00.000Z",
      "2026-01-06T09:00:00.000Z",
    ]);
    expect(isoList(nextCronTimes("0 0 L * *", "UTC", at("2026-01-15T00:00:00Z"), 2))).toEqual([
      "2026-01-31T00:00:00.000Z",
      "2026-02-28T00:00:00.000Z",
    ]);
    expect(next("0 0 29 2 *", "UTC", "2026-01-01T00:00:00Z")).toBe("2028-02-29T00:00:00.000Z");
  });

  it("uses cron's OR when both day fields are restricted", () => {
    // 30 February never comes, but Mondays in February do.
    expect(next("0 0 30 2 MON", "UTC", "2026-01-01T00:00:00Z")).toBe("2026-02-02T00:00:00.000Z");
  });
});

// The daylight-saving rule, with the examples of docs/cron.md (the property
// test in cron-dst.test.ts checks it in every zone).
// America/New_York, 2026: spring forward Sun 8 March 02:00 EST → 03:00 EDT;
// fall back Sun 1 November 02:00 EDT → 01:00 EST.
describe("daylight saving", () => {
  const NY = "America/New_York";

  it("skipped hour, fixed time: runs as far past the gap as it was into it", () => {
    expect(isoList(nextCronTimes("30 2 * * *", NY, at("2026-03-07T12:00:00Z"), 3))).toEqual([
      "2026-03-08T07:30:00.000Z", // 03:30 EDT: 02:30 does not exist that day
      "2026-03-09T06:30:00.000Z", // 02:30 EDT
      "2026-03-10T06:30:00.000Z",
    ]);
    // Asked for at 03:10 EDT, just after the jump, the moved run is still ahead.
    expect(next("30 2 * * *", NY, "2026-03-08T07:10:00Z")).toBe("2026-03-08T07:30:00.000Z");
  });

  it("skipped hour, several fixed minutes: each runs, none collapse", () => {
    expect(isoList(nextCronTimes("15,45 2 * * *", NY, at("2026-03-07T12:00:00Z"), 3))).toEqual([
      "2026-03-08T07:15:00.000Z", // 03:15 EDT
      "2026-03-08T07:45:00.000Z", // 03:45 EDT
      "2026-03-09T06:15:00.000Z",
    ]);
  });

  it("skipped hour: a moved run on the instant of another run is one run", () => {
    expect(isoList(nextCronTimes("30 2,3 * * *", NY, at("2026-03-07T12:00:00Z"), 2))).toEqual([
      "2026-03-08T07:30:00.000Z", // 03:30 EDT, for both 02:30 and 03:30
      "2026-03-09T06:30:00.000Z",
    ]);
  });

  it("skipped hour, repeating fields: the wall times that never happen do not run", () => {
    expect(isoList(nextCronTimes("*/30 * * * *", NY, at("2026-03-08T06:10:00Z"), 3))).toEqual([
      "2026-03-08T06:30:00.000Z", // 01:30 EST
      "2026-03-08T07:00:00.000Z", // 03:00 EDT, 30 minutes later
      "2026-03-08T07:30:00.000Z",
    ]);
    // Steps in the minute field: nothing on 8 March.
    expect(next("*/20 2 * * *", NY, "2026-03-07T12:00:00Z")).toBe("2026-03-09T06:00:00.000Z");
  });

  it("repeated hour, fixed time: runs once, at the first copy", () => {
    expect(isoList(nextCronTimes("30 1 * * *", NY, at("2026-10-31T12:00:00Z"), 2))).toEqual([
      "2026-11-01T05:30:00.000Z", // 01:30 EDT; 01:30 EST (06:30Z) is not a run
      "2026-11-02T06:30:00.000Z",
    ]);
    // Asked for between the two copies, the next run is the next day's.
    expect(next("30 1 * * *", NY, "2026-11-01T05:45:00Z")).toBe("2026-11-02T06:30:00.000Z");
  });

  it("repeated hour, repeating fields: runs through both copies", () => {
    expect(isoList(nextCronTimes("*/30 * * * *", NY, at("2026-11-01T04:50:00Z"), 6))).toEqual([
      "2026-11-01T05:00:00.000Z", // 01:00 EDT
      "2026-11-01T05:30:00.000Z", // 01:30 EDT
      "2026-11-01T06:00:00.000Z", // 01:00 EST
      "2026-11-01T06:30:00.000Z", // 01:30 EST
      "2026-11-01T07:00:00.000Z", // 02:00 EST
      "2026-11-01T07:30:00.000Z",
    ]);
    // Asked for inside the second copy, the rest of it is still ahead.
    expect(next("*/30 * * * *", NY, "2026-11-01T06:10:00Z")).toBe("2026-11-01T06:30:00.000Z");
    // A step in the minute field is enough, even with a fixed hour.
    expect(isoList(nextCronTimes("*/20 1 * * *", NY, at("2026-10-31T12:00:00Z"), 7))).toEqual([
      "2026-11-01T05:00:00.000Z",
      "2026-11-01T05:20:00.000Z",
      "2026-11-01T05:40:00.000Z",
      "2026-11-01T06:00:00.000Z",
      "2026-11-01T06:20:00.000Z",
      "2026-11-01T06:40:00.000Z",
      "2026-11-02T06:00:00.000Z",
    ]);
  });

  it("a daily run keeps its wall-clock time across the change", () => {
    expect(isoList(nextCronTimes("0 9 * * *", "Europe/Berlin", at("2026-03-28T12:00:00Z"), 2))).toEqual([
      "2026-03-29T07:00:00.000Z", // 09:00 CEST, first day of summer time
      "2026-03-30T07:00:00.000Z",
    ]);
  });

  // Lord Howe Island, 2026: back half an hour on 5 April 02:00 (+11 → +10:30),
  // forward half an hour on 4 October 02:00 (+10:30 → +11).
  it("half-hour changes (Australia/Lord_Howe)", () => {
    const LH = "Australia/Lord_Howe";
    expect(next("15 2 * * *", LH, "2026-10-03T00:00:00Z")).toBe("2026-10-03T15:45:00.000Z"); // 02:45 +11
    expect(isoList(nextCronTimes("45 1 * * *", LH, at("2026-04-04T00:00:00Z"), 2))).toEqual([
      "2026-04-04T14:45:00.000Z", // 01:45 +11, the first copy
      "2026-04-05T15:15:00.000Z",
    ]);
    expect(isoList(nextCronTimes("*/15 1 * * *", LH, at("2026-04-04T00:00:00Z"), 7))).toEqual([
      "2026-04-04T14:00:00.000Z", // 01:00 +11
      "2026-04-04T14:15:00.000Z",
      "2026-04-04T14:30:00.000Z", // 01:30 +11
      "2026-04-04T14:45:00.000Z",
      "2026-04-04T15:00:00.000Z", // 01:30 +10:30
      "2026-04-04T15:15:00.000Z",
      "2026-04-05T14:30:00.000Z",
    ]);
  });

  // Chatham Islands, 2026: back an hour on 5 April 03:45 (+13:45 → +12:45),
  // forward an hour on 27 September 02:45 (+12:45 → +13:45).
  it("changes off the hour (Pacific/Chatham)", () => {
    const CH = "Pacific/Chatham";
    expect(next("0 3 * * *", CH, "2026-09-26T00:00:00Z")).toBe("2026-09-26T14:15:00.000Z"); // 04:00 +13:45
    expect(next("0 3 * * *", CH, "2026-04-04T00:00:00Z")).toBe("2026-04-04T13:15:00.000Z"); // 03:00 +13:45
    expect(isoList(nextCronTimes("0 * * * *", CH, at("2026-04-04T12:00:00Z"), 4))).toEqual([
      "2026-04-04T12:15:00.000Z", // 02:00 +13:45
      "2026-04-04T13:15:00.000Z", // 03:00 +13:45
      "2026-04-04T14:15:00.000Z", // 03:00 +12:45
      "2026-04-04T15:15:00.000Z", // 04:00 +12:45
    ]);
  });
});

describe("checkCron", () => {
  const NOW = at("2026-05-10T12:00:00Z");
  const message = (expr: string, tz: string): string => {
    try {
      checkCron(expr, tz, NOW);
    } catch (err) {
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).tag).toBe("BadRequest");
      return (err as ApiError).message;
    }
    throw new Error(`accepted: ${expr} ${tz}`);
  };

  it("normalises spacing and keeps the zone as written", () => {
    expect(checkCron(" 0  9\t* * * ", "utc", NOW)).toEqual({ expr: "0 9 * * *", tz: "utc" });
    expect(checkCron("0 9 * * *", "europe/berlin", NOW)).toEqual({ expr: "0 9 * * *", tz: "europe/berlin" });
    // Intl may answer another name of the zone (Asia/Calcutta for Asia/Kolkata, America/New_York for US/Eastern).
    expect(checkCron("0 9 * * *", "Asia/Kolkata", NOW).tz).toBe("Asia/Kolkata");
    expect(checkCron("0 9 * * *", "Asia/Calcutta", NOW).tz).toBe("Asia/Calcutta");
    expect(checkCron("0 9 * * *", "US/Eastern", NOW).tz).toBe("US/Eastern");
  });

  const FIELDS = "Invalid cron expression: expected 5 fields (minute hour day-of-month month day-of-week)";
  it.each([
    ["0 0 * * * *", "UTC", `${FIELDS}, got 6 in "0 0 * * * *"`],
    ["* * * *", "UTC", `${FIELDS}, got 4 in "* * * *"`],
    ["@daily", "UTC", 'Invalid cron expression: macros such as @daily are not supported, write five fields in "@daily"'],
    ["@hourly", "UTC", 'Invalid cron expression: macros such as @hourly are not supported, write five fields in "@hourly"'],
    ["H * * * *", "UTC", 'Invalid cron expression: hashed values (H) are not supported in "H * * * *"'],
    ["0 H(0-5) * * *", "UTC", 'Invalid cron expression: hashed values (H) are not supported in "0 H(0-5) * * *"'],
    ["60 * * * *", "UTC", 'Invalid cron expression: Constraint error, got value 60 expected range 0-59 in "60 * * * *"'],
    ["0 0 30 2 *", "UTC", 'Invalid cron expression: Invalid explicit day of month definition in "0 0 30 2 *"'],
    ["*/0 * * * *", "UTC", 'Invalid cron expression: Constraint error, cannot repeat at every 0 time. in "*/0 * * * *"'],
    ["5-1 * * * *", "UTC", 'Invalid cron expression: Invalid range: 5-1, min(5) > max(1) in "5-1 * * * *"'],
    ["0 9 * * *", "Mars/Olympus", 'Invalid cron expression: unknown time zone "Mars/Olympus"'],
    ["0 9 * * *", "+02:00", 'Invalid cron expression: unknown time zone "+02:00"'],
    ["0 9 * * *", "Europe/", 'Invalid cron expression: unknown time zone "Europe/"'],
    ["0 9 * * *", "", "Invalid cron expression: missing time zone after the comma"],
    // ? is * only in the two day fields.
    ["? 1 * * *", "UTC", 'Invalid cron expression: ? is only for day-of-month and day-of-week, write * in the minute field of "? 1 * * *"'],
    ["0 ? * * *", "UTC", 'Invalid cron expression: ? is only for day-of-month and day-of-week, write * in the hour field of "0 ? * * *"'],
    ["0 0 * ? *", "UTC", 'Invalid cron expression: ? is only for day-of-month and day-of-week, write * in the month field of "0 0 * ? *"'],
    ["*/5,? * * * *", "UTC", 'Invalid cron expression: ? is only for day-of-month and day-of-week, write * in the minute field of "*/5,? * * * *"'],
    // A misplaced L, said without cron-parser's class names (CronDayOfMonth…).
    ["0 0 8L * *", "UTC", 'Invalid cron expression: L in day-of-month is an item of its own, the last day of the month, got 8L in "0 0 8L * *"'],
    ["0 0 LL,1 * *", "UTC", 'Invalid cron expression: L in day-of-month is an item of its own, the last day of the month, got LL in "0 0 LL,1 * *"'],
    ["0 0 * * L", "UTC", 'Invalid cron expression: L in day-of-week follows one weekday, as 5L for the last Friday of the month, got L in "0 0 * * L"'],
    ["0 0 * * 9L", "UTC", 'Invalid cron expression: L in day-of-week follows one weekday, as 5L for the last Friday of the month, got 9L in "0 0 * * 9L"'],
    ["0 0 * * L,1,1", "UTC", 'Invalid cron expression: L in day-of-week follows one weekday, as 5L for the last Friday of the month, got L in "0 0 * * L,1,1"'],
    // H is refused before cron-parser draws values for it.
    ["H/8L * * * *", "UTC", 'Invalid cron expression: hashed values (H) are not supported in "H/8L * * * *"'],
  ])("%j in %j", (expr, tz, expected) => {
    expect(message(expr, tz)).toBe(expected);
  });

  it("accepts weekday names containing H and every day-of-week spelling", () => {
    for (const dow of ["THU", "thu", "TUE-THU", "0", "7", "1-5", "5L", "1#2", "?"]) {
      expect(cronShapeProblem(`0 9 * * ${dow}`)).toBeNull();
    }
  });

  it("takes a day-of-week range ending on SUN as ending on Sunday (7), and keeps the expression as written", () => {
    const days = (expr: string) => nextCronTimes(checkCron(expr, "UTC", NOW).expr, "UTC", NOW, 7).map((d) => d.getUTCDay());
    // 2026-05-10 is a Sunday.
    expect(checkCron("0 0 * * MON-SUN", "UTC", NOW)).toEqual({ expr: "0 0 * * MON-SUN", tz: "UTC" });
    expect(days("0 0 * * MON-SUN")).toEqual([1, 2, 3, 4, 5, 6, 0]);
    expect(days("0 0 * * sat-sun")).toEqual([6, 0, 6, 0, 6, 0, 6]);
    expect(days("0 0 * * Sat-Sun")).toEqual(days("0 0 * * 6-7"));
    expect(days("0 0 * * MON-SUN/2")).toEqual(days("0 0 * * 1-7/2"));
    expect(days("0 0 * * FRI-SUN,TUE")).toEqual([2, 5, 6, 0, 2, 5, 6]);
    // Sunday alone stays Sunday alone.
    expect(days("0 0 * * SUN-SUN")).toEqual([0, 0, 0, 0, 0, 0, 0]);
    expect(days("0 0 * * 0-SUN")).toEqual([0, 0, 0, 0, 0, 0, 0]);
    // Only ends in the day-of-week field: SUN anywhere else is still refused.
    expect(message("0 0 * SUN *", "UTC")).toMatch(/^Invalid cron expression: /);
    // A range that wraps through Sunday is still refused.
    expect(message("0 0 * * SAT-MON", "UTC")).toBe('Invalid cron expression: Invalid range: 6-1, min(6) > max(1) in "0 0 * * SAT-MON"');
  });

  it("refuses more than 1024 characters, cron-parser's limit, also when merging repeats would shorten them", () => {
    expect(message(`${"0,".repeat(600)}0 * * * *`, "UTC")).toBe("Invalid cron expression: expected at most 1024 characters, got 1209");
  });

  it("never passes on cron-parser's class names (CronDayOfWeek…) or its own prefix", () => {
    const token = fc.constantFrom("0", "1", "5", "7", "8", "31", "60", "L", "5L", "8L", "LL", "?", "*", "#", "1#2", "MON", "SUN", "JUL", "W", "");
    const part = fc.tuple(token, fc.constantFrom(",", "-", "/", "#", ""), token).map(([a, sep, b]) => a + sep + b);
    const field = fc.array(part, { minLength: 1, maxLength: 3 }).map((parts) => parts.join(",") || "*");
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4 }), field, (index, text) => {
        const fields = ["0", "0", "*", "*", "*"];
        fields[index] = text;
        expect(cronShapeProblem(fields.join(" ")) ?? "").not.toMatch(/Cron[A-Z]|Invalid cron expression/);
      }),
      { numRuns: 3000 },
    );
  });

  it("knows real zones and aliases", () => {
    for (const tz of ["UTC", "Europe/Berlin", "America/Argentina/Buenos_Aires", "Etc/GMT+5", "US/Eastern", "GMT"]) {
      expect(timeZoneProblem(tz)).toBeNull();
    }
  });

  it("a daily run next to a half-hour clock change (Lord Howe), where cron-parser alone gave up", () => {
    // 2027-04-04 02:00 local (+11) goes back to 01:30 (+10:30); 01:00 local that day is 14:00Z on the 3rd.
    const after = at("2027-04-03T13:00:00Z");
    expect(nextCronTimes("0 1 * * *", "Australia/Lord_Howe", after, 3).map((d) => d.toISOString())).toEqual([
      "2027-04-03T14:00:00.000Z",
      "2027-04-04T14:30:00.000Z",
      "2027-04-05T14:30:00.000Z",
    ]);
    expect(nextCronTime("0 2 * * *", "Australia/Lord_Howe", after).toISOString()).toBe("2027-04-03T15:30:00.000Z");
    expect(checkCron("0 1 * * */1", "Australia/Lord_Howe", at("2084-03-31T14:00:00Z")).expr).toBe("0 1 * * */1");
  });

  it("every valid expression has a next run after its check time, strictly later", () => {
    const field = (max: number) =>
      fc.oneof(fc.constant("*"), fc.integer({ min: 0, max }).map(String), fc.integer({ min: 1, max }).map((n) => `*/${n}`));
    fc.assert(
      fc.property(
        fc.tuple(field(59), field(23), fc.constant("*"), fc.constant("*"), field(6)),
        fc.date({ min: at("2000-01-01T00:00:00Z"), max: at("2100-01-01T00:00:00Z"), noInvalidDate: true }),
        fc.constantFrom("UTC", "Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Asia/Kathmandu"),
        (fields, after, tz) => {
          const { expr } = checkCron(fields.join(" "), tz, after);
          const [first, second] = nextCronTimes(expr, tz, after, 2);
          expect(first?.getTime()).toBeGreaterThan(after.getTime());
          expect(second?.getTime()).toBeGreaterThan(first?.getTime() ?? Infinity);
          expect(first?.getTime()).toBe(nextCronTime(expr, tz, after).getTime());
          expect((first?.getTime() ?? 1) % 60_000).toBe(0);
        },
      ),
      { numRuns: 300 },
    );
  });
});

// cron takes a list as the union of its items; cron-parser refuses a list
// that names a value twice, so the list is merged before it reads it.
describe("skipThroughOnCancel", () => {
  const NOW = at("2026-05-10T09:20:00Z");
  const skip = (instanceAt: string, skipThrough: string | null = null) =>
    skipThroughOnCancel("0 * * * *", "UTC", NOW, skipThrough === null ? null : at(skipThrough), at(instanceAt))?.toISOString() ?? null;

  it("an instance still ahead stands for the next run not already skipped, wherever it was moved", () => {
    expect(skip("2026-05-10T10:00:00Z")).toBe("2026-05-10T10:00:00.000Z"); // not moved
    expect(skip("2030-01-01T00:30:00Z")).toBe("2026-05-10T10:00:00.000Z"); // moved later
    expect(skip("2026-05-10T15:00:00Z")).toBe("2026-05-10T10:00:00.000Z"); // moved later, onto another run
    expect(skip("2026-05-10T09:45:00Z")).toBe("2026-05-10T10:00:00.000Z"); // moved earlier
    // 10:00 already cancelled: the pending 11:00 one, moved or not, stands for 11:00.
    expect(skip("2026-05-10T11:00:00Z", "2026-05-10T10:00:00Z")).toBe("2026-05-10T11:00:00.000Z");
    expect(skip("2030-01-01T00:30:00Z", "2026-05-10T10:00:00Z")).toBe("2026-05-10T11:00:00.000Z");
  });

  it("an instance whose time has passed skips no run still to come", () => {
    expect(skip("2026-05-10T09:00:00Z")).toBeNull();
    expect(skip("2026-05-10T09:20:00Z", "2026-05-10T08:00:00Z")).toBe("2026-05-10T08:00:00.000Z");
  });
});
