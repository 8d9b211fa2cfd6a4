// The trigger form's values and what is sent (docs/dashboard.md, docs/api/dashboard-api.md):
// POST /triggers for a new trigger, PUT /triggers/<id> for an edit, each
// the whole trigger. A one-time schedule is typed in the viewer's own time
// zone and sent as a UTC instant; a recurring one as `cron(<expr>, <zone>)`.
// The API's messages name what they are about, which is how each is shown
// next to its field.
import { viewerZone } from "./format";
import type { Trigger, TriggerBody } from "./types";

export type ScheduleMode = "once" | "cron";

export interface HeaderRow {
  name: string;
  value: string;
}

export interface TriggerForm {
  url: string;
  method: string;
  headers: HeaderRow[];
  body: string;
  mode: ScheduleMode;
  /** `YYYY-MM-DDTHH:mm:ss` in the viewer's zone, as a datetime-local input holds it */
  at: string;
  /**
   * The stored time the form was filled from (Edit): sent as it is while
   * `at` still shows it, since a local time in the hour repeated when
   * daylight saving ends reads back as the earlier of its two instants.
   */
  storedAt?: string;
  runMissed: boolean;
  cronExpr: string;
  tz: string;
  customKey: string;
  /** comma-separated, as `ttr-tags` */
  tags: string;
  title: string;
}

export type FieldName = "url" | "method" | "headers" | "body" | "at" | "cronExpr" | "tz" | "customKey" | "tags" | "title" | "form";
export type FieldErrors = Partial<Record<FieldName, string>>;

export const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"];

/** Methods whose request is sent without a body (as on /schedule). */
export const carriesNoBody = (method: string): boolean => ["GET", "HEAD", "OPTIONS"].includes(method.toUpperCase());

/** An instant as a datetime-local value in `timeZone` (seconds included). */
export function localInput(d: Date, timeZone: string = viewerZone): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    })
      .formatToParts(d)
      .map((p) => [p.type, p.value]),
  );
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}`;
}

/**
 * The instant a datetime-local value means in the viewer's zone (the
 * browser's own), or null when it is not a complete date and time. In a
 * daylight-saving gap or overlap the browser's reading is taken.
 */
export function instantOf(local: string): Date | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(local);
  if (!m) return null;
  const [, y, mo, d, h, mi, s] = m.map(Number) as number[];
  const at = new Date(y!, mo! - 1, d!, h!, mi!, Number.isNaN(s) ? 0 : s!);
  return Number.isNaN(at.getTime()) ? null : at;
}

export function emptyForm(now: Date = new Date()): TriggerForm {
  // A minute ahead, whole minute: a sensible first value to change.
  const soon = new Date(Math.ceil((now.getTime() + 60_000) / 60_000) * 60_000);
  return {
    url: "",
    method: "POST",
    headers: [],
    body: "",
    mode: "once",
    at: localInput(soon),
    runMissed: false,
    cronExpr: "",
    tz: viewerZone,
    customKey: "",
    tags: "",
    title: "",
  };
}

/**
 * The form filled from a trigger, for Edit. A recurring trigger's title is
 * never shown, not even to the dashboard, so an edit stores it as none
 * (docs/concepts.md).
 */
export function formOf(t: Trigger): TriggerForm {
  return {
    url: t.url,
    method: t.method,
    headers: Object.entries(t.headers).map(([name, value]) => ({ name, value })),
    body: t.body ?? "",
    mode: t.kind === "generator" ? "cron" : "once",
    at: t.scheduledAt ? localInput(new Date(t.scheduledAt)) : "",
    ...(t.scheduledAt ? { storedAt: t.scheduledAt } : {}),
    runMissed: false,
    cronExpr: t.cronExpr ?? "",
    tz: t.tz ?? "UTC",
    customKey: t.customKey ?? "",
    tags: t.tags.join(", "),
    title: t.title ?? "",
  };
}

/** `ttr-tags` reading: split at commas, trimmed, empty entries dropped. */
export const tagsOf = (text: string): string[] =>
  text
    .split(",")
    .map((t) => t.trim())
    .filter((t) => t !== "");

/** What is sent, or the errors found before sending (only what the API could not say better). */
export function bodyOf(f: TriggerForm): { body: TriggerBody } | { errors: FieldErrors } {
  const errors: FieldErrors = {};
  let scheduledAt = "";
  if (f.mode === "once") {
    const at = f.storedAt !== undefined && localInput(new Date(f.storedAt)) === f.at ? new Date(f.storedAt) : instantOf(f.at);
    if (at === null) errors.at = "Choose a date and time.";
    else scheduledAt = at.toISOString();
  } else {
    if (f.cronExpr.trim() === "") errors.cronExpr = "Enter a cron expression, five fields: minute hour day-of-month month day-of-week.";
    scheduledAt = `cron(${f.cronExpr.trim()}${f.tz.trim() === "" ? "" : `, ${f.tz.trim()}`})`;
  }
  const names = new Set<string>();
  for (const h of f.headers) {
    const key = h.name.trim().toLowerCase();
    if (key === "" && h.value === "") continue;
    if (key === "") errors.headers = "Every header needs a name.";
    else if (names.has(key)) errors.headers = `The header ${h.name.trim()} is listed twice.`;
    names.add(key);
  }
  if (Object.keys(errors).length > 0) return { errors };

  const headers: Record<string, string> = {};
  for (const h of f.headers) if (h.name.trim() !== "") headers[h.name.trim()] = h.value;
  const recurring = f.mode === "cron";
  return {
    body: {
      url: f.url.trim(),
      method: f.method,
      headers,
      body: carriesNoBody(f.method) || f.body === "" ? null : f.body,
      scheduledAt,
      customKey: f.customKey === "" ? null : f.customKey,
      tags: tagsOf(f.tags),
      title: f.title === "" ? null : f.title,
      runMissed: !recurring && f.runMissed,
    },
  };
}

/** Which field an API message is about; `form` when none. */
export function fieldOfMessage(message: string, mode: ScheduleMode): FieldName {
  const rules: Array<[RegExp, FieldName]> = [
    [/^Invalid URL/, "url"],
    [/^(Maximum \d+ tags|Tag too long|Invalid tag)/, "tags"],
    [/^Title too long/, "title"],
    [/^Custom key too long/, "customKey"],
    [/^(Invalid date|Unknown pipe operation|Invalid duration)/, "at"],
    // The API reports a bad zone as a cron error too; it belongs to the zone's own field.
    [/^Invalid cron expression: (unknown|missing) time zone/, mode === "cron" ? "tz" : "at"],
    [/^Invalid cron expression/, mode === "cron" ? "cronExpr" : "at"],
    [/^Invalid method/, "method"],
    [/^(Invalid header name|Header .* cannot be stored|Invalid value for header|headers)/, "headers"],
    [/(carries no body|body is larger)/, "body"],
  ];
  return rules.find(([re]) => re.test(message))?.[1] ?? "form";
}
