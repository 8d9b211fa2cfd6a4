// The `ttr-scheduled-at` grammar and its date formats (docs/scheduled-at.md).
// Errors follow the check order of docs/api/schedule.md, whose date checks go
// in this order: the date, then every pipe operation's name, then every amount, so
// that the first failing check in that table is the one reported even when a
// later operation breaks an earlier-listed rule.

import { checkCron, cronShapeProblem, timeZoneProblem } from "./cron.js";
import { badRequest } from "./errors.js";

export type ScheduledAt =
  /** `at` is whole seconds (docs/concepts.md). `nowBased` marks
   * values starting with `now`, which are never skipped (docs/api/schedule.md).
   * `fractionMs` is the part of a second dropped from the date as written
   * (none: 0): a time later in the current second than the request is not
   * past, so it fires rather than being skipped. */
  | { kind: "once"; at: Date; nowBased: boolean; fractionMs?: number }
  /** `expr` has five fields joined by single spaces; `tz` is the IANA name
   * as written, `UTC` when none was given. */
  | { kind: "cron"; expr: string; tz: string };

const SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400, w: 604800 };

// Every result must be writable as a plain four-digit ISO year, so that what
// the response and the dashboard show parses back through this grammar, and
// every reader of the database must read it back: year 0000 (1 BC) is
// stored by PostgreSQL as a BC date, which its ISO input and Prisma's reading
// of a row do not take, so the years run from 0001.
const RANGE = { min: utcMs(1, 1, 1, 0, 0, 0), max: utcMs(9999, 12, 31, 23, 59, 59) };

/**
 * Parse a `ttr-scheduled-at` value against the caller's clock.
 * `Invalid date: …` quotes the whole header value as sent (not only the part
 * before the first pipe), so the caller sees exactly what the service got.
 */
export function parseScheduledAt(raw: string | undefined, now: Date): ScheduledAt {
  const value = (raw ?? "").trim();
  if (value.startsWith("cron(")) return parseCronValue(value, now);

  const [head = "", ...ops] = value.split("|").map((part) => part.trim());
  const date = head === "now" ? { ms: truncateToSecond(now.getTime()), fractionMs: 0 } : isoDate(head);
  if (date === null) throw badRequest(`Invalid date: ${raw ?? ""}`);
  const { ms: base, fractionMs } = date;

  const steps = ops.map((op) => {
    const m = /^(add|subtract)\s+(\S.*)$/s.exec(op);
    if (m === null) throw badRequest(`Unknown pipe operation: ${op}`);
    return { sign: m[1] === "add" ? 1 : -1, amount: m[2] ?? "" };
  });
  const deltas = steps.map(({ sign, amount }) => sign * durationSeconds(amount));

  let at = base;
  deltas.forEach((delta, i) => {
    at += delta * 1000;
    // Out of range (or beyond float precision) is blamed on the amount that took it there.
    if (!(at >= RANGE.min && at <= RANGE.max)) {
      throw badRequest(`Invalid duration: ${steps[i]?.amount ?? ""}`);
    }
  });
  return { kind: "once", at: new Date(at), nowBased: head === "now", fractionMs };
}

/** Whether a one-shot's time as written is at or before `now`: such a one is skipped unless run-missed (docs/api/schedule.md). */
export function isPastDated(when: { at: Date; fractionMs?: number }, now: Date): boolean {
  return when.at.getTime() + (when.fractionMs ?? 0) <= now.getTime();
}


/** Seconds in a signed whole amount with unit s, m, h, d or w (w = 7 days). */
function durationSeconds(amount: string): number {
  const m = /^([+-]?)(\d+)([smhdw])$/.exec(amount);
  const unit = SECONDS[m?.[3] ?? ""];
  if (m === null || unit === undefined) throw badRequest(`Invalid duration: ${amount}`);
  // Huge digit strings become Infinity; the range check in the caller rejects them.
  return (m[1] === "-" ? -1 : 1) * Number(m[2]) * unit;
}

// YYYY-MM-DD, optionally followed by T (or t, or one space as in RFC 3339)
// and HH:MM[:SS[.fraction]], optionally followed by Z or ±HH[[:]MM].
const ISO_DATE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)?)?$/;

/**
 * Epoch milliseconds of a docs/scheduled-at.md date, whole seconds, or null. Written by
 * hand because Date.parse accepts far more than ISO 8601 (e.g. "1" or
 * "March 7") and silently rolls impossible dates over.
 * The fraction is dropped outright: offsets are whole minutes, so dropping it
 * is exactly truncation toward the past, before 1970 too.
 */
export function parseIsoDate(text: string): number | null {
  return isoDate(text)?.ms ?? null;
}

/** parseIsoDate's whole seconds, and the fraction of a second it drops (in milliseconds, finer digits kept). */
function isoDate(text: string): { ms: number; fractionMs: number } | null {
  const m = ISO_DATE.exec(text);
  if (m === null) return null;
  const [, y, mo, d, h = "0", mi = "0", s = "0", fraction, , sign, oh = "0", om = "0"] = m;
  const [year, month, day] = [Number(y), Number(mo), Number(d)];
  const [hour, minute, second] = [Number(h), Number(mi), Number(s)];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  // No hour 24 and no leap second 60: neither is representable as a Date.
  if (hour > 23 || minute > 59 || second > 59) return null;
  if (Number(oh) > 23 || Number(om) > 59) return null;
  const offsetMinutes = (sign === "-" ? -1 : 1) * (Number(oh) * 60 + Number(om));
  const ms = utcMs(year, month, day, hour, minute, second) - offsetMinutes * 60_000;
  if (!(ms >= RANGE.min && ms <= RANGE.max)) return null;
  return { ms, fractionMs: fraction === undefined ? 0 : Number(`0.${fraction}`) * 1000 };
}

function parseCronValue(value: string, now: Date): ScheduledAt {
  const inner = /^cron\((.*)\)$/s.exec(value)?.[1]?.trim();
  if (inner === undefined) {
    throw badRequest("Invalid cron expression: expected cron(<expr>[, <timezone>]) with nothing after it");
  }
  const { expr, tz } = checkCron(...cronReading(inner), now);
  return { kind: "cron", expr, tz };
}

/**
 * The expression and zone of `cron(…)`'s inside. The expression itself may
 * hold commas (`0 9,17 * * MON,TUE`), so the text after the last comma is
 * the zone only when the whole text is not an expression. When neither
 * reading passes, the error reported is the one of the reading the caller
 * most likely meant: the zone reading when what follows the comma can only
 * be a zone, else the whole text as an expression, so that `0 9,17 * *
 * MON,TUX` is blamed on TUX and `61 9,17 * * *` on the 61, not on a zone or
 * on the field count of the text before the comma.
 */
function cronReading(inner: string): [expr: string, tz: string] {
  const comma = inner.lastIndexOf(",");
  const whole: [string, string] = [inner, "UTC"];
  if (comma < 0 || cronShapeProblem(inner) === null) return whole;
  const split: [string, string] = [inner.slice(0, comma).trim(), inner.slice(comma + 1).trim()];
  if (cronShapeProblem(split[0]) === null && timeZoneProblem(split[1]) === null) return split;
  return onlyAZone(inner.slice(comma + 1)) ? split : whole;
}

/**
 * Whether the text after a comma inside `cron(…)` cannot continue the
 * expression's last field, so the caller meant it as the zone: nothing (a
 * missing zone), a known zone, an Area/Location name, anything after a space
 * (a list of cron values has none) or holding a character no cron field
 * has (`+02:00`). Text with a space or `*` inside is the rest of an
 * expression whose own comma came earlier.
 */
function onlyAZone(afterComma: string): boolean {
  const text = afterComma.trim();
  if (text === "") return true;
  if (/[\s*]/.test(text)) return false;
  return (
    /^\s/.test(afterComma) ||
    timeZoneProblem(text) === null ||
    /[A-Za-z].*\/.*[A-Za-z]/.test(text) ||
    /[^A-Za-z0-9/#?-]/.test(text)
  );
}

/** Floor, not trunc: 1969-12-31T23:59:59.5Z must become …59.000, not 1970. */
export function truncateToSecond(ms: number): number {
  return Math.floor(ms / 1000) * 1000;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

// Date.UTC maps years 0–99 to 1900–1999; setUTCFullYear does not.
function utcMs(year: number, month: number, day: number, hour: number, minute: number, second: number): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, 0);
  return date.getTime();
}
