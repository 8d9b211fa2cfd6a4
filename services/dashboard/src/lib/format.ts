// How values read on screen: the dashboard labels of docs/concepts.md, times in UTC and in
// the viewer's zone, sizes.

const JOB_LABELS: Record<string, string> = {
  registered: "Scheduled",
  skipped: "Skipped",
  queued: "Queued",
  running: "Running",
  retrying: "Retrying",
  completed: "Completed",
  cancelled: "Cancelled",
};

const GENERATOR_LABELS: Record<string, string> = { active: "Active", cancelled: "Cancelled" };

export function statusLabel(kind: "job" | "generator", status: string): string {
  return (kind === "generator" ? GENERATOR_LABELS : JOB_LABELS)[status] ?? status;
}

/** Filter choices for the trigger list: one-shot statuses, then recurring ones. */
export const STATUS_FILTERS: Array<{ value: string; label: string }> = [
  ...Object.entries(JOB_LABELS).map(([value, label]) => ({ value, label })),
  { value: "active", label: "Active (recurring)" },
];

export const KIND_LABELS = { job: "One-shot", generator: "Recurring" } as const;

/** The title to show: a recurring trigger's title is never displayed (docs/concepts.md). */
export function shownTitle(t: { kind: "job" | "generator"; title: string | null }): string | null {
  return t.kind === "generator" ? null : visibleTitle(t.title);
}

/** Nothing a reader would see: white space, soft hyphens, zero-width and direction marks. */
const INVISIBLE = /^[\s\u00AD\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]*$/;

/**
 * A title to show, or null when it has nothing visible (an empty
 * `ttr-title:` header stores ""), so that its row shows method and URL
 * instead of an empty, unclickable link.
 */
export function visibleTitle(title: string | null): string | null {
  return title === null || INVISIBLE.test(title) ? null : title;
}

export const viewerZone: string = Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";

const pad = (n: number) => String(n).padStart(2, "0");

/** 2026-11-22 10:00:00 UTC */
export function utc(iso: string | null): string {
  if (iso === null) return "—";
  const d = new Date(iso);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} UTC`;
}

const zoned = new Map<string, Intl.DateTimeFormat>();

/** The time in a zone (the viewer's by default), e.g. "22 Nov 2026, 11:00:00 CET"; with the weekday for cron runs. */
export function inZone(iso: string | Date | null, timeZone: string = viewerZone, weekday = false): string {
  if (iso === null) return "—";
  const key = `${timeZone}|${weekday}`;
  let f = zoned.get(key);
  if (f === undefined) {
    f = new Intl.DateTimeFormat(undefined, {
      timeZone,
      weekday: weekday ? "short" : undefined,
      year: "numeric",
      month: "short",
      day: "numeric",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      timeZoneName: "short",
    });
    zoned.set(key, f);
  }
  return f.format(typeof iso === "string" ? new Date(iso) : iso);
}

const offsets = new Map<string, Intl.DateTimeFormat>();

/** The zone's offset from UTC at that instant, e.g. "UTC-05:00", "UTC+05:30", "UTC+00:00". */
export function utcOffset(d: Date, timeZone: string): string {
  let f = offsets.get(timeZone);
  if (f === undefined) {
    f = new Intl.DateTimeFormat("en-US", { timeZone, timeZoneName: "longOffset" });
    offsets.set(timeZone, f);
  }
  const name = f.formatToParts(d).find((p) => p.type === "timeZoneName")?.value ?? "GMT";
  return name === "GMT" ? "UTC+00:00" : name.replace("GMT", "UTC");
}

const shortFormats = new Map<string, { day: Intl.DateTimeFormat; time: Intl.DateTimeFormat; full: Intl.DateTimeFormat }>();

/**
 * A compact time in a zone for table cells, with the zone's name: the time
 * alone when it falls on today's date in that zone ("11:00:00 CET"), else
 * with the day ("21 Nov, 23:30:00 UTC"). The same instant can be today in
 * one zone and yesterday in another, so each zone decides for itself.
 */
export function short(iso: string | null, timeZone: string = viewerZone, now: Date = new Date()): string {
  if (iso === null) return "—";
  let f = shortFormats.get(timeZone);
  if (f === undefined) {
    const clock = { hour: "2-digit", minute: "2-digit", second: "2-digit", timeZoneName: "short" } as const;
    f = {
      day: new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" }),
      time: new Intl.DateTimeFormat(undefined, { timeZone, ...clock }),
      full: new Intl.DateTimeFormat(undefined, { timeZone, month: "short", day: "numeric", ...clock }),
    };
    shortFormats.set(timeZone, f);
  }
  const d = new Date(iso);
  return f.day.format(d) === f.day.format(now) ? f.time.format(d) : f.full.format(d);
}

const relative = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" });

/** "in 5 minutes", "2 hours ago" */
export function fromNow(iso: string | null, now: number = Date.now()): string {
  if (iso === null) return "";
  const seconds = Math.round((new Date(iso).getTime() - now) / 1000);
  const abs = Math.abs(seconds);
  if (abs < 60) return relative.format(seconds, "second");
  if (abs < 3600) return relative.format(Math.round(seconds / 60), "minute");
  if (abs < 86400) return relative.format(Math.round(seconds / 3600), "hour");
  return relative.format(Math.round(seconds / 86400), "day");
}

export function bytes(n: number | null): string {
  if (n === null) return "—";
  if (n >= 10485760) return "≥ 10 MB";
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

export const number = new Intl.NumberFormat();
