// When a recurring trigger runs. The expression is matched against the wall
// clock of its time zone, and every matching wall time becomes run instants
// by one daylight-saving rule, the same in every zone (docs/cron.md, with
// examples):
//
// - A wall time the clock shows once runs then.
// - A wall time the clock shows twice (it was set back) runs at both copies
//   when the minute or the hour field repeats (holds `*` or a step `/`),
//   and only at the first copy otherwise ("fixed-time" jobs).
// - A wall time the clock skips (it was set forward) runs, for fixed-time
//   jobs, at the instant it had on the clock before the change: as far past
//   the end of the gap as it was past its start (02:30 in a 02:00 → 03:00
//   gap runs at 03:30; 02:15 in a 02:00 → 02:30 gap at 02:45). Jobs whose
//   minute or hour repeats do not run at skipped wall times.
// - Runs that land on the same instant are one run.
//
// cron-parser walks the wall times that match, reading them as UTC where no
// clock ever changes; its own daylight-saving handling, which drops or moves
// runs next to shifts of half an hour or off the hour, is never used.

import { type CronExpression, CronExpressionParser } from "cron-parser";
import { zoneOffset } from "./zone-clock.js";

const DAY = 86_400_000;
/** Matching wall times looked at before giving up (a run normally needs 2). */
const MAX_WALL_TIMES = 10_000;

/**
 * The first run strictly after `after`, in `tz`. Runs are whole minutes, so
 * milliseconds of `after` never matter. Throws a plain Error on an invalid
 * expression or zone: callers validate with `checkCron` first.
 */
export function nextCronTime(expr: string, tz: string, after: Date): Date {
  const from = after.getTime();
  const repeating = repeatsWithinDay(expr);
  // A run after `from` whose wall time is at or below `from` on the current
  // offset needs a clock change within a day of `from` (a repeated hour still
  // to come, or a skipped one just passed), so no wall time at or below
  // `from` plus the lowest offset of the day either side can run after it.
  const lowest = Math.min(zoneOffset(tz, from - DAY), zoneOffset(tz, from), zoneOffset(tz, from + DAY));
  const walls = wallTimes(expr);
  walls.reset(new Date(from + lowest));
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < MAX_WALL_TIMES; i++) {
    const wall = walls.next().getTime();
    const around = offsetsAround(tz, wall);
    // Neither this wall time nor a later one runs before `best`.
    if (wall - Math.max(around.before, around.after) >= best) return new Date(best);
    // The usual case: no clock change within a day, so no later wall time
    // can run earlier than this one (a change is at most a few hours).
    if (best === Number.POSITIVE_INFINITY && around.before === around.after && wall - around.before > from) {
      return new Date(wall - around.before);
    }
    // No run of this wall time comes after `from` (its latest is on the lower offset).
    if (wall - Math.min(around.before, around.after) <= from) continue;
    for (const run of runsAt(tz, wall, around, repeating)) {
      if (run > from && run < best) best = run;
    }
  }
  throw new Error(`no run found for "${expr}" in ${tz} after ${after.toISOString()}`);
}

/**
 * A recurring trigger's next run: the first strictly after `now` and after
 * `skipThrough`, the latest of its runs cancelled on its own (null: none),
 * so that a cancelled run is not planned again (docs/concepts.md).
 */
export function nextRunAfterSkips(expr: string, tz: string, now: Date, skipThrough: Date | null): Date {
  return nextCronTime(expr, tz, skipThrough !== null && skipThrough > now ? skipThrough : now);
}

/**
 * A recurring trigger's `skipThrough` once instances of it, the latest at
 * `instanceAt`, are cancelled by their own IDs at `now`. A cancelled
 * instance whose time is still ahead stands for one run: the next one not
 * already skipped (the run it was created for, wherever it was moved
 * since), so that run is skipped and the next instance is the run after
 * it. One whose time has passed (skipped, retrying, or due and not yet
 * picked up) skips no run still to come. Throws like `nextCronTime`.
 */
export function skipThroughOnCancel(expr: string, tz: string, now: Date, skipThrough: Date | null, instanceAt: Date): Date | null {
  return instanceAt > now ? nextRunAfterSkips(expr, tz, now, skipThrough) : skipThrough;
}

/**
 * The skipped runs a recurring trigger keeps when it is sent again with
 * `expr` and `tz`: all of them under the same schedule, none under a new one
 * (the statements that store the new schedule clear them alike).
 */
export function skipsKept(stored: { cronExpr: string; tz: string; skipThrough: Date | null } | undefined, expr: string, tz: string): Date | null {
  return stored !== undefined && stored.cronExpr === expr && stored.tz === tz ? stored.skipThrough : null;
}

/**
 * Whether `tz` is a time zone a recurring trigger may name: an IANA name
 * (`Area/Location`, `UTC`) that the runtime knows. Fixed offsets such as
 * `+02:00`, which newer runtimes take, are refused: only a named zone says
 * when its clock changes. Here rather than in cron.ts so that the dashboard
 * checks a zone as the API does.
 */
export function isTimeZoneName(tz: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*$/.test(tz)) return false;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
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

// Parsing costs about as much as finding a run, and the scheduler asks again
// and again for the same few expressions.
const parsed = new Map<string, CronExpression>();
const MAX_PARSED = 1000;

/** An iterator over the wall times `expr` matches, read as UTC; reset it before use. */
function wallTimes(expr: string): CronExpression {
  let walls = parsed.get(expr);
  if (walls === undefined) {
    if (parsed.size >= MAX_PARSED) parsed.clear();
    walls = CronExpressionParser.parse(parserText(expr), { tz: "UTC" });
    parsed.set(expr, walls);
  }
  return walls;
}

/**
 * `expr` as cron-parser must read it. cron-parser knows SUN only as 0, so a
 * range ending on it (`MON-SUN`, `sat-sun/2`) would be backwards; in the
 * day-of-week field such an end is written 7 (also Sunday), as in `5-7`.
 * `SUN-SUN` and `0-SUN` stay Sunday alone. What is stored and shown is the
 * expression as written, never this text.
 */
export function parserText(expr: string): string {
  const fields = expr.trim().split(/\s+/);
  const dow = fields[4];
  if (fields.length !== 5 || dow === undefined) return expr;
  fields[4] = dow
    .split(",")
    .map((part) => part.replace(/^([^-/]+)-sun(?=\/|$)/i, (range, start: string) => (/^(0|sun)$/i.test(start) ? range : `${start}-7`)))
    .join(",");
  return fields.map(withoutRepeats).join(" ");
}

const FIELDS = ["minute", "hour", "dayOfMonth", "month", "dayOfWeek"] as const;

/**
 * A list whose items match a value more than once (`0,7` or `SUN,7` in the
 * day of week, `MON-FRI,WED`, `*\/15,30`, `0,0`) as the values its items
 * match, each once: cron-parser refuses such a list, where cron takes the
 * union of the items. Each item is read by cron-parser alone, so that steps,
 * ranges, names and L keep their meaning; 7 in the day of week is Sunday, as
 * 0 is. A list cron-parser takes stays as written, and so does a field
 * with `#` (never part of a list). An item cron-parser refuses is kept as
 * written, so that its error is the one reported.
 */
function withoutRepeats(field: string, index: number): string {
  if (!field.includes(",") || field.includes("#")) return field;
  // Run times are worked out often (each instance, each /declare item): a list's answer is kept.
  const key = `${index} ${field}`;
  let text = listTexts.get(key);
  if (text === undefined) {
    if (listTexts.size >= LIST_TEXTS_KEPT) listTexts.clear();
    text = unionText(field, index);
    listTexts.set(key, text);
  }
  return text;
}

const LIST_TEXTS_KEPT = 1000;
const listTexts = new Map<string, string>();

function unionText(field: string, index: number): string {
  if (fieldValues(field, index) !== null) return field;
  const items = field.split(",");
  const union = new Set<number | string>();
  const refused = new Set<string>();
  let matched = 0;
  let refusedItems = 0;
  for (const item of items) {
    const values = fieldValues(item, index);
    if (values === null) {
      refused.add(item);
      refusedItems++;
      continue;
    }
    matched += values.size;
    for (const value of values) union.add(value);
  }
  const repeats = matched > union.size || refusedItems > refused.size;
  return repeats ? [...union, ...refused].join(",") : field;
}

/** The values `text` matches as field `index`, or null when cron-parser refuses it there. */
function fieldValues(text: string, index: number): Set<number | string> | null {
  if (text === "") return null;
  const probe = ["*", "*", "*", "*", "*"];
  probe[index] = text;
  try {
    const values: readonly (number | string)[] = CronExpressionParser.parse(probe.join(" "), { tz: "UTC" }).fields[FIELDS[index] ?? "minute"].values;
    return new Set(index === 4 ? values.map((value) => (value === 7 ? 0 : value)) : values);
  } catch {
    return null;
  }
}

/** Whether the minute or the hour field repeats within a day: `*`, `*\/15`, `5-55/10`… */
export function repeatsWithinDay(expr: string): boolean {
  const [minute = "", hour = ""] = expr.trim().split(/\s+/);
  return /[*?/]/.test(minute) || /[*?/]/.test(hour);
}

interface Around {
  /** zone offset a day before the wall time, so before any change affecting it */
  before: number;
  /** zone offset a day after it */
  after: number;
}

// Clock changes are months apart in every zone (a test checks this for the
// years it covers), so a day either side sees at most one of them.
function offsetsAround(tz: string, wall: number): Around {
  return { before: zoneOffset(tz, wall - DAY), after: zoneOffset(tz, wall + DAY) };
}

/** The instants at which wall time `wall` (read as UTC) runs, by the rule at the top. */
function runsAt(tz: string, wall: number, { before, after }: Around, repeating: boolean): number[] {
  if (before === after) return [wall - before];
  const onOldClock = wall - before;
  const onNewClock = wall - after;
  const shown = [onOldClock, onNewClock]
    .filter((instant, i) => zoneOffset(tz, instant) === (i === 0 ? before : after))
    .sort((a, b) => a - b);
  if (shown.length === 0) return repeating ? [] : [onOldClock];
  return repeating ? shown : shown.slice(0, 1);
}
