// Recurring triggers in words: the cron expression described (cronstrue),
// its time zone, and the next run times, worked out by the same code as the
// scheduler's, daylight-saving rule included (docs/cron.md).
import { nextCronTimes } from "@ttr/core/cron-next";
import cronstrue from "cronstrue";

/** The fields as typed; the API takes exactly five. */
export function cronFields(expr: string): string[] {
  return expr.trim().split(/\s+/).filter((f) => f !== "");
}

/**
 * `expr` as cronstrue must read it to name the right days. Day of week runs
 * to 7 (Sunday again), so `5/2` is Friday and Sunday and `MON/2` ends on
 * Sunday; cronstrue reads such a step as ending on Saturday. Written out as
 * the range it is (`5-7/2`), it reads rightly. A step from Sunday (`0/3`)
 * is left as it is. The expression shown stays the one written.
 */
export function wordsText(expr: string): string {
  const fields = cronFields(expr);
  const dow = fields[4];
  if (fields.length !== 5 || dow === undefined) return expr;
  fields[4] = dow
    .split(",")
    .map((part) => part.replace(/^([0-7]|[a-z]{3})\/(\d+)$/i, (step, start: string, by: string) => (/^(0|sun)$/i.test(start) ? step : `${start}-7/${by}`)))
    .join(",");
  return fields.join(" ");
}

export function describeCron(expr: string, tz: string | null): string {
  let words: string;
  try {
    words = cronstrue.toString(wordsText(expr), { use24HourTimeFormat: true, verbose: false });
  } catch {
    return `Cron ${expr}`;
  }
  return `${words}, ${tz && tz !== "UTC" ? `${tz} time` : "UTC"}`;
}

/** The next `count` run times after `from`, or [] when the expression cannot be read. */
export function nextRuns(expr: string, tz: string | null, count: number, from: Date = new Date()): Date[] {
  try {
    return nextCronTimes(expr, tz ?? "UTC", from, count);
  } catch {
    return [];
  }
}
