// Wall clocks of IANA time zones, read from the time-zone data Node itself
// carries (Intl). Cron schedules are matched against these wall clocks; see
// docs/cron.md for how a schedule crosses a daylight-saving change.

const formatters = new Map<string, Intl.DateTimeFormat>();
/** Distinct zone spellings kept formatted at once; more only costs a rebuild. */
const MAX_FORMATTERS = 1000;

// `format` and a regular expression cost a fifth of `formatToParts`.
const WALL = /^(\d+)\/(\d+)\/(\d+), (\d+):(\d+):(\d+)$/;

function formatter(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (f === undefined) {
    if (formatters.size >= MAX_FORMATTERS) formatters.clear();
    f = new Intl.DateTimeFormat("en-US", {
      timeZone: tz,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    formatters.set(tz, f);
  }
  return f;
}

/**
 * How far the wall clock of `tz` is ahead of UTC at the instant `at`, in
 * milliseconds (negative west of Greenwich). Throws a RangeError for a zone
 * Intl does not know.
 */
export function zoneOffset(tz: string, at: number): number {
  const second = Math.floor(at / 1000) * 1000;
  const m = WALL.exec(formatter(tz).format(second));
  if (m === null) throw new RangeError(`cannot read the wall clock of ${tz} at ${new Date(at).toISOString()}`);
  const [, month, day, year, hour, minute, sec] = m.map(Number) as number[];
  const wall = new Date(0);
  wall.setUTCFullYear(year ?? 0, (month ?? 1) - 1, day);
  wall.setUTCHours(hour ?? 0, minute, sec, 0);
  return wall.getTime() - second;
}
