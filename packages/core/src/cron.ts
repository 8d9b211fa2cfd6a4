// Cron schedules of recurring triggers, `cron(<expr>[, <zone>])` in
// `ttr-scheduled-at`: five-field expressions read on the wall clock of an
// IANA time zone (docs/cron.md).
//
// cron-parser reads and checks the expression. Its permissive corners are
// closed here, because what it silently accepts would otherwise be stored:
// fewer than five fields (it pads them), six fields (seconds), `@daily`-style
// macros, `H` hashed values (random per parse unless seeded, so the
// schedule would change every time it is re-read), and `?` outside the two
// day fields. Its own messages are passed on, except those naming its
// classes (`CronDayOfWeek Validation error, …`). When runs come is worked
// out in cron-next.ts, which also hands cron-parser lists whose items
// overlap (`0,7`), which cron takes and cron-parser would refuse.

import { CronExpressionParser } from "cron-parser";
import { isTimeZoneName, nextCronTime, parserText } from "./cron-next.js";
import { badRequest } from "./errors.js";

export { nextCronTime, nextCronTimes, nextRunAfterSkips, skipsKept } from "./cron-next.js";

/** A cron expression that passed `checkCron`, with the time zone it runs in. */
export interface CronSchedule {
  /** Five fields separated by single spaces. */
  expr: string;
  /**
   * The IANA name exactly as the caller wrote it: `Asia/Calcutta` stays
   * `Asia/Calcutta` and `US/Eastern` stays `US/Eastern`, although Intl would
   * answer another name of the same zone.
   */
  tz: string;
}

const invalidCron = (details: string) => badRequest(`Invalid cron expression: ${details}`);

/** cron-parser refuses longer expressions; five fields never need as much. */
const MAX_LENGTH = 1024;
const FIELD_NAMES = ["minute", "hour", "day-of-month", "month", "day-of-week"] as const;

/**
 * Why `expr` is not an accepted five-field expression, or null when it is.
 * Only checks the shape and what cron-parser can parse; whether a run ever
 * comes is checked by `checkCron`.
 */
export function cronShapeProblem(expr: string): string | null {
  const fields = expr.trim().split(/\s+/).filter((f) => f !== "");
  if (fields.length === 1 && fields[0]?.startsWith("@")) {
    return `macros such as ${fields[0]} are not supported, write five fields in "${expr}"`;
  }
  if (fields.length !== 5) {
    return `expected 5 fields (minute hour day-of-month month day-of-week), got ${fields.length} in "${expr}"`;
  }
  const text = fields.join(" ");
  if (text.length > MAX_LENGTH) return `expected at most ${MAX_LENGTH} characters, got ${text.length}`;
  // Month and weekday names (JAN, THU…) may contain an H; only a bare H hashes.
  const hashed = fields.some((f, i) => (i >= 3 ? f.replace(/[a-z]{3}/gi, "") : f).includes("H"));
  if (hashed) return `hashed values (H) are not supported in "${expr}"`;
  const question = fields.findIndex((f, i) => i !== 2 && i !== 4 && f.includes("?"));
  if (question >= 0) {
    return `? is only for day-of-month and day-of-week, write * in the ${FIELD_NAMES[question]} field of "${expr}"`;
  }
  try {
    CronExpressionParser.parse(parserText(text), { tz: "UTC" });
  } catch (err) {
    return `${parserProblem(errorText(err))} in "${expr}"`;
  }
  return null;
}

/**
 * cron-parser's message, said without the name of its class for the field
 * (`CronDayOfWeek Validation error, …`), which means nothing to a caller.
 * Checks in cron-parser's field classes only fail on a misplaced L (lists
 * that repeat a value never reach it); the last line is a safety net.
 */
function parserProblem(message: string): string {
  const match = /^Cron(Minute|Hour|DayOfMonth|Month|DayOfWeek) Validation error, (.*)$/s.exec(message);
  if (match === null) return message;
  const [, field = "", detail = ""] = match;
  const value = /^got value (\S+) expected range/.exec(detail)?.[1] ?? (detail === "unexpected standalone L" ? "L" : undefined);
  if (field === "DayOfMonth" && value !== undefined) return `L in day-of-month is an item of its own, the last day of the month, got ${value}`;
  if (field === "DayOfWeek" && value !== undefined) return `L in day-of-week follows one weekday, as 5L for the last Friday of the month, got ${value}`;
  const name = FIELD_NAMES[["Minute", "Hour", "DayOfMonth", "Month", "DayOfWeek"].indexOf(field)];
  return `invalid ${name} field: ${detail}`;
}

/**
 * Why `tz` is not a usable IANA time zone, or null when it is. Fixed offsets
 * such as `+02:00` are refused: only names carry DST rules.
 */
export function timeZoneProblem(tz: string): string | null {
  if (tz === "") return "missing time zone after the comma";
  if (!isTimeZoneName(tz)) {
    return `unknown time zone "${tz}"`;
  }
  return null;
}

/**
 * Validate an expression and time zone of a recurring trigger. Throws
 * `Invalid cron expression: …`; returns the expression with single spaces
 * and the zone as written. An expression with no run after `now` is invalid.
 */
export function checkCron(expr: string, tz: string, now: Date): CronSchedule {
  const shape = cronShapeProblem(expr);
  if (shape !== null) throw invalidCron(shape);
  const zone = timeZoneProblem(tz);
  if (zone !== null) throw invalidCron(zone);
  const schedule: CronSchedule = {
    expr: expr.trim().split(/\s+/).join(" "),
    tz,
  };
  try {
    nextCronTime(schedule.expr, schedule.tz, now);
  } catch (err) {
    throw invalidCron(`no upcoming run for "${expr}" in ${schedule.tz} (${errorText(err)})`);
  }
  return schedule;
}

/** Whether Intl knows the zone, under any of its names and in any letter case. */
const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));
