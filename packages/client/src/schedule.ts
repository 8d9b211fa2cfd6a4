// /schedule takes the trigger as request headers: `ttr-*` say where and when,
// every other header and the body are stored and sent to the target. This
// turns a typed options object into that request.

export interface ScheduleOptions {
  /** the absolute URL the request goes to (`ttr-url`) */
  url: string;
  /**
   * When (`ttr-scheduled-at`): a Date; a string such as `2026-11-22T10:00:00Z`,
   * `2026-11-22`, `now`, `now | add 10m`; or `{ cron, tz }` for a recurring
   * trigger (`cron(<five fields>, <IANA time zone>)`, UTC by default).
   */
  scheduledAt: string | Date | { cron: string; tz?: string };
  /** the method the target gets, and the method of the call to /schedule; POST by default */
  method?: string;
  /** headers stored and sent to the target as they are (names starting with `ttr-` are not allowed) */
  headers?: Record<string, string>;
  /** the body stored and sent to the target (not with GET or HEAD) */
  body?: string | Uint8Array | ArrayBuffer | Blob;
  /** a body sent as JSON, with `content-type: application/json` unless `headers` sets one */
  json?: unknown;
  /** an idempotency key: the pending trigger with this key is updated instead of duplicated (`ttr-custom-key`) */
  customKey?: string;
  /** up to 10 tags, each 1 to 50 characters from a-z, 0-9, `_`, `-` (`ttr-tags`) */
  tags?: string[];
  /** a label for the dashboard, up to 200 characters (`ttr-title`) */
  title?: string;
  /** the ID of a registered one-shot or an active recurring trigger to edit (`ttr-trigger-id`) */
  triggerId?: string;
  /** true: a past-dated one-shot fires at once instead of being stored as skipped (`ttr-run-missed`) */
  runMissed?: boolean;
}

/** The `ttr-scheduled-at` value of `when`. */
export function scheduledAtHeader(when: ScheduleOptions["scheduledAt"]): string {
  if (when instanceof Date) return when.toISOString();
  if (typeof when === "string") return when;
  return when.tz === undefined ? `cron(${when.cron})` : `cron(${when.cron}, ${when.tz})`;
}

export interface ScheduleRequest {
  method: string;
  headers: Record<string, string>;
  body: BodyInit | undefined;
}

/** The method, headers and body of the /schedule call for `opts` (the API key is added by the transport). */
export function scheduleRequest(opts: ScheduleOptions): ScheduleRequest {
  const method = (opts.method ?? "POST").toUpperCase();
  if (opts.body !== undefined && opts.json !== undefined) throw new TypeError("schedule: give body or json, not both");
  const carriesBody = opts.body !== undefined || opts.json !== undefined;
  if (carriesBody && (method === "GET" || method === "HEAD")) throw new TypeError(`schedule: a ${method} request has no body`);

  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(opts.headers ?? {})) {
    if (name.toLowerCase().startsWith("ttr-")) throw new TypeError(`schedule: header ${name} is reserved; use the options of the same meaning`);
    headers[name.toLowerCase()] = value;
  }
  // Headers the caller's HTTP client adds are stored and sent too; fetch asks
  // for compressed answers by default, which the target's recorded response
  // would then be (unreadable in the execution), so ask for plain ones.
  headers["accept-encoding"] ??= "identity";
  if (opts.json !== undefined) headers["content-type"] ??= "application/json";

  headers["ttr-url"] = opts.url;
  headers["ttr-scheduled-at"] = scheduledAtHeader(opts.scheduledAt);
  if (opts.customKey !== undefined) headers["ttr-custom-key"] = opts.customKey;
  if (opts.tags !== undefined && opts.tags.length > 0) headers["ttr-tags"] = opts.tags.join(",");
  if (opts.title !== undefined) headers["ttr-title"] = opts.title;
  if (opts.triggerId !== undefined) headers["ttr-trigger-id"] = opts.triggerId;
  if (opts.runMissed !== undefined) headers["ttr-run-missed"] = String(opts.runMissed);

  // Every form of `body` is one fetch sends; the cast only widens a Node
  // Buffer's Uint8Array<ArrayBufferLike> to what the DOM types list.
  return { method, headers, body: opts.json !== undefined ? JSON.stringify(opts.json) : (opts.body as BodyInit | undefined) };
}
