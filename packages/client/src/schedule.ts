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
  scheduledAt: string | Date | { cron: string; tz?: string | undefined };
  // The optional options also take `undefined` (a value read from the
  // environment, say), also under exactOptionalPropertyTypes: it means absent.
  /** the method the target gets, and the method of the call to /schedule; POST by default */
  method?: string | undefined;
  /** headers stored and sent to the target as they are (no `ttr-` or connection-level names: Connection, Host, Content-Length, …) */
  headers?: Record<string, string> | undefined;
  /** the body stored and sent to the target (not with GET or HEAD) */
  body?: string | Uint8Array | ArrayBuffer | Blob | undefined;
  /** a body sent as JSON, with `content-type: application/json` unless `headers` sets one */
  json?: unknown;
  /** an idempotency key: the pending trigger with this key is updated instead of duplicated (`ttr-custom-key`) */
  customKey?: string | undefined;
  /** up to 10 tags, each 1 to 50 characters from a-z, 0-9, `_`, `-` (`ttr-tags`) */
  tags?: string[] | undefined;
  /** a label for the dashboard, up to 200 characters (`ttr-title`) */
  title?: string | undefined;
  /** the ID of a registered one-shot or an active recurring trigger to edit (`ttr-trigger-id`) */
  triggerId?: string | undefined;
  /** true: a past-dated one-shot fires at once instead of being stored as skipped (`ttr-run-missed`) */
  runMissed?: boolean | undefined;
}

/** The `ttr-scheduled-at` value of `when`. */
export function scheduledAtHeader(when: ScheduleOptions["scheduledAt"]): string {
  if (when instanceof Date) return when.toISOString();
  if (typeof when === "string") return when;
  return when.tz === undefined ? `cron(${when.cron})` : `cron(${when.cron}, ${when.tz})`;
}

/**
 * A `ttr-` header's value as fetch can send it: the api reads these values
 * as UTF-8, while fetch sends each character of a header as one byte (and
 * refuses characters past U+00FF), so text is spelled out as its UTF-8
 * bytes. Titles and keys in any script arrive as written.
 */
export function ttrHeaderValue(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: ASCII is sent as it is
  if (/^[\u0000-\u007f]*$/.test(text)) return text;
  let bytes = "";
  for (const byte of new TextEncoder().encode(text)) bytes += String.fromCharCode(byte);
  return bytes;
}

/** An HTTP token (RFC 9110): what a method or a header name may be. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Whether HTTP carries a header value as it is: no NUL or line break, and one byte per character. */
function sendableValue(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c === 0 || c === 10 || c === 13 || c > 0xff) return false;
  }
  return true;
}

/** Methods fetch refuses to send (the Fetch standard forbids them). */
const FORBIDDEN_METHODS = new Set(["CONNECT", "TRACE", "TRACK"]);

/**
 * Names that describe the call's own connection or message, not the stored
 * request: hop-by-hop headers (RFC 9110 §7.6.1), Host, Content-Length and
 * Expect. The api stores none of them (POST /triggers refuses them) and
 * fetch refuses to send several (Keep-Alive, Transfer-Encoding, Expect,
 * Upgrade), so schedule() refuses them all before sending. The list is the
 * api's (isForwardedName in packages/core/src/headers.ts), which this package
 * cannot import, having no dependencies; test/schedule-headers.test.ts keeps
 * the two the same.
 */
const CONNECTION_LEVEL: ReadonlySet<string> = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authenticate",
  "proxy-authorization",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "host",
  "content-length",
  "expect",
]);

/** Refuses a header name a scheduled request cannot carry: `ttr-`, connection-level, or not an HTTP token. */
function checkHeaderName(name: string): void {
  const lower = name.toLowerCase();
  if (lower.startsWith("ttr-")) throw new TypeError(`schedule: header ${name} is reserved; use the options of the same meaning`);
  if (CONNECTION_LEVEL.has(lower)) throw new TypeError(`schedule: header ${name} is connection-level: it describes this call, not the request to store, and is neither stored nor sent`);
  if (!TOKEN.test(name)) throw new TypeError(`schedule: ${JSON.stringify(name)} is not a header name`);
}

export interface ScheduleRequest {
  method: string;
  headers: Record<string, string>;
  body: RequestInit["body"];
}

/** The method, headers and body of the /schedule call for `opts` (the API key is added by the transport). */
export function scheduleRequest(opts: ScheduleOptions): ScheduleRequest {
  const method = (opts.method ?? "POST").toUpperCase();
  if (!TOKEN.test(method)) throw new TypeError(`schedule: ${JSON.stringify(opts.method)} is not an HTTP method`);
  if (FORBIDDEN_METHODS.has(method)) throw new TypeError(`schedule: fetch cannot send a ${method} request, so this client cannot schedule one; call /schedule with another HTTP client`);
  if (opts.body !== undefined && opts.json !== undefined) throw new TypeError("schedule: give body or json, not both");
  const carriesBody = opts.body !== undefined || opts.json !== undefined;
  if (carriesBody && (method === "GET" || method === "HEAD")) throw new TypeError(`schedule: a ${method} request has no body`);

  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(opts.headers ?? {})) {
    checkHeaderName(name);
    // Sent and stored byte for byte: one byte per character, as HTTP carries them.
    if (!sendableValue(value)) {
      throw new TypeError(`schedule: header ${name} holds a line break, NUL or a character past U+00FF; send text as its UTF-8 bytes or encode it (percent, base64)`);
    }
    headers[name.toLowerCase()] = value;
  }
  // Headers the caller's HTTP client adds are stored and sent too; fetch asks
  // for compressed answers by default, which the target's recorded response
  // would then be (unreadable in the execution), so ask for plain ones.
  headers["accept-encoding"] ??= "identity";
  if (opts.json !== undefined) headers["content-type"] ??= "application/json";

  headers["ttr-url"] = ttrHeaderValue(opts.url);
  headers["ttr-scheduled-at"] = ttrHeaderValue(scheduledAtHeader(opts.scheduledAt));
  if (opts.customKey !== undefined) headers["ttr-custom-key"] = ttrHeaderValue(opts.customKey);
  if (opts.tags !== undefined && opts.tags.length > 0) headers["ttr-tags"] = ttrHeaderValue(opts.tags.join(","));
  if (opts.title !== undefined) headers["ttr-title"] = ttrHeaderValue(opts.title);
  if (opts.triggerId !== undefined) headers["ttr-trigger-id"] = opts.triggerId;
  if (opts.runMissed !== undefined) headers["ttr-run-missed"] = String(opts.runMissed);

  // Every form of `body` is one fetch sends; the cast only widens a Node
  // Buffer's Uint8Array<ArrayBufferLike> to what the DOM types list.
  return { method, headers, body: opts.json !== undefined ? JSON.stringify(opts.json) : (opts.body as RequestInit["body"]) };
}
