// Recurring triggers in words: the cron expression described (cronstrue),
// its time zone, and the next run times (cron-parser, always with the
// trigger's zone).
import { CronExpressionParser } from "cron-parser";
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
    const it = CronExpressionParser.parse(expr, { tz: tz ?? "UTC", currentDate: from });
    return it.take(count).map((d) => d.toDate());
  } catch {
    return [];
  }
}
