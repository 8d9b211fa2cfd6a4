// Recurring triggers in words: the cron expression described (cronstrue),
// its time zone, and the next run times, worked out by the same code as the
// scheduler's, daylight-saving rule included (docs/cron.md).
import { nextCronTimes } from "@ttr/core/cron-next";
import cronstrue from "cronstrue";

export function describeCron(expr: string, tz: string | null): string {
  let words: string;
  try {
    words = cronstrue.toString(expr, { use24HourTimeFormat: true, verbose: false });
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
