// Cron schedules of recurring triggers (docs/scheduled-at.md, cron
// grammar): five-field expressions evaluated in an IANA time zone.
//
// cron-parser does the calendar and DST work. Its permissive corners are
// closed here, because what it silently accepts would otherwise be stored:
// fewer than five fields (it pads them), six fields (seconds), `@daily`-style
// macros, and `H` hashed values (random per parse unless seeded, so the
// schedule would change every time it is re-read).

import { CronExpressionParser } from "cron-parser";
import { badRequest } from "./errors.js";

/** A cron expression that passed `checkCron`, with the time zone it runs in. */
export interface CronSchedule {
  /** Five fields separated by single spaces. */
  expr: string;
  /** Canonical IANA name, e.g. `Europe/Berlin` (input is case-insensitive). */
  tz: string;
}

const invalidCron = (details: string) => badRequest(`Invalid cron expression: ${details}`);

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
  try {
    CronExpressionParser.parse(fields.join(" "), { tz: "UTC" });
  } catch (err) {
    return `${errorText(err)} in "${expr}"`;
  }
  // Month and weekday names (JAN, THU…) may contain an H; only a bare H hashes.
  const hashed = fields.some((f, i) => (i >= 3 ? f.replace(/[a-z]{3}/gi, "") : f).includes("H"));
  if (hashed) return `hashed values (H) are not supported in "${expr}"`;
  return null;
}

/**
 * Why `tz` is not a usable IANA time zone, or null when it is. Fixed offsets
 * such as `+02:00` are refused: only names carry DST rules.
 */
export function timeZoneProblem(tz: string): string | null {
  if (tz === "") return "missing time zone after the comma";
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*$/.test(tz) || canonicalTimeZone(tz) === null) {
    return `unknown time zone "${tz}"`;
  }
  return null;
}

/**
 * Validate an expression and time zone for `/schedule` (docs/api/schedule.md,
 * error checks). Throws `Invalid cron expression: …`; returns the normalised form.
 * An expression with no run after `now` (e.g. 30 February) is invalid.
 */
export function checkCron(expr: string, tz: string, now: Date): CronSchedule {
  const shape = cronShapeProblem(expr);
  if (shape !== null) throw invalidCron(shape);
  const zone = timeZoneProblem(tz);
  if (zone !== null) throw invalidCron(zone);
  const schedule: CronSchedule = {
    expr: expr.trim().split(/\s+/).join(" "),
    tz: canonicalTimeZone(tz) ?? tz,
  };
  try {
    nextCronTime(schedule.expr, schedule.tz, now);
  } catch (err) {
    throw invalidCron(`no upcoming run for "${expr}" in ${schedule.tz} (${errorText(err)})`);
  }
  return schedule;
}

/**
 * The first run strictly after `after`, in `tz`. Runs are whole minutes, so
 * milliseconds of `after` never matter. DST (tested in cron.test.ts): a wall
 * time skipped by spring-forward fires once, one hour later on the new clock;
 * a wall time repeated by fall-back fires once (its first occurrence), while
 * `*` / step minutes and hours fire through both repeated hours.
 * Throws cron-parser's plain Error on an invalid expression or zone: callers
 * validate with `checkCron` first.
 */
export function nextCronTime(expr: string, tz: string, after: Date): Date {
  let from = after;
  for (let window = 0; ; window++) {
    try {
      return CronExpressionParser.parse(expr, { tz, currentDate: from }).next().toDate();
    } catch (err) {
      // cron-parser gives up ("loop limit exceeded") next to some DST shifts
      // of half an hour (Australia/Lord_Howe, a daily 01:00 run on the day
      // clocks go back): look for the run minute by minute past the shift.
      if (!/loop limit/i.test(errorText(err)) || window === SCAN_WINDOWS) throw err;
      const found = scanMinutes(expr, tz, from);
      if (found !== null) return found;
      from = new Date(from.getTime() + SCAN_MINUTES * MINUTE);
    }
  }
}

const MINUTE = 60_000;
/** minutes looked at one by one when cron-parser fails: two days */
const SCAN_MINUTES = 2 * 24 * 60;
/** how many such windows before giving up */
const SCAN_WINDOWS = 4;

/** The first whole minute strictly after `after` (within SCAN_MINUTES) that the expression matches. */
function scanMinutes(expr: string, tz: string, after: Date): Date | null {
  const cron = CronExpressionParser.parse(expr, { tz });
  let t = Math.floor(after.getTime() / MINUTE) * MINUTE + MINUTE;
  for (let i = 0; i < SCAN_MINUTES; i++, t += MINUTE) {
    if (cron.includesDate(new Date(t))) return new Date(t);
  }
  return null;
}

/** The next `n` runs strictly after `after`, in order (see `nextCronTime`). */
export function nextCronTimes(expr: string, tz: string, after: Date, n: number): Date[] {
  const out: Date[] = [];
  let from = after;
  for (let i = 0; i < n; i++) {
    from = nextCronTime(expr, tz, from);
    out.push(from);
  }
  return out;
}

function canonicalTimeZone(tz: string): string | null {
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone: tz }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));
