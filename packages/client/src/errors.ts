// Every failure of a call is a TtrError with a `_tag`: the api's own error
// answers keep the `_tag` and `message` of their JSON body; answers without
// one (an empty 400 or 404, the plain-text 415, a 431) get the tag of their
// status, and the one-line reason of their `ttr-error` header; a request that
// got no answer at all, or lost it while its body arrived, is `Transport`.

/** The `_tag` of each error status of ttr's api. */
export const STATUS_TAGS = {
  400: "BadRequest",
  401: "Unauthorized",
  402: "QuotaExceeded",
  403: "Forbidden",
  404: "NotFound",
  410: "Gone",
  413: "PayloadTooLarge",
  415: "UnsupportedMediaType",
  429: "TooManyRequests",
  431: "HeadersTooLarge",
  500: "InternalError",
  503: "Unavailable",
} as const;

export type TtrErrorTag =
  | (typeof STATUS_TAGS)[keyof typeof STATUS_TAGS]
  /** a status ttr does not document, a redirect, or a 2xx whose body is not JSON (a proxy in front of ttr, for example) */
  | "HttpError"
  /** no answer, or one whose body broke off: connection refused, DNS failure, reset */
  | "Transport";

export class TtrError<Tag extends TtrErrorTag = TtrErrorTag> extends Error {
  override readonly name = "TtrError";
  readonly _tag: Tag;
  /** the HTTP status; 0 when no answer arrived (`Transport`) */
  readonly status: number;
  /** the `ttr-error` header: why a request answered with no body was refused; null when absent */
  readonly reason: string | null;
  /** seconds to wait before trying again, from `Retry-After` (503, 429); null when absent */
  readonly retryAfter: number | null;

  constructor(fields: { _tag: Tag; status: number; message: string; reason?: string | null; retryAfter?: number | null; cause?: unknown }) {
    super(fields.message, fields.cause === undefined ? undefined : { cause: fields.cause });
    this._tag = fields._tag;
    this.status = fields.status;
    this.reason = fields.reason ?? null;
    this.retryAfter = fields.retryAfter ?? null;
  }
}

/** Whether `err` is a TtrError, and with `tag`, one with that `_tag`. */
export function isTtrError<Tag extends TtrErrorTag = TtrErrorTag>(err: unknown, tag?: Tag): err is TtrError<Tag> {
  return err instanceof TtrError && (tag === undefined || err._tag === tag);
}

function tagOf(status: number): TtrErrorTag {
  return (STATUS_TAGS as Record<number, TtrErrorTag>)[status] ?? "HttpError";
}

/** `Retry-After` in seconds; an HTTP date counts from now. */
function retryAfterSeconds(value: string | null, now: number): number | null {
  if (value === null || value.trim() === "") return null;
  if (/^\s*\d+\s*$/.test(value)) return Number(value);
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}

function jsonError(text: string): { _tag: string; message: string } | null {
  try {
    const body: unknown = JSON.parse(text);
    if (typeof body === "object" && body !== null && "_tag" in body && "message" in body) {
      const { _tag, message } = body as Record<string, unknown>;
      if (typeof _tag === "string" && typeof message === "string") return { _tag, message };
    }
  } catch {}
  return null;
}

/** The TtrError for a non-2xx answer; reads its body. */
export async function errorFromResponse(res: Response): Promise<TtrError> {
  return errorFromAnswer(res, await res.text().catch(() => ""));
}

/** The TtrError for a non-2xx answer whose body `text` has been read. */
export function errorFromAnswer(res: Response, text: string): TtrError {
  const reason = res.headers.get("ttr-error");
  const retryAfter = retryAfterSeconds(res.headers.get("retry-after"), Date.now());
  const isJson = /^application\/json\b/i.test(res.headers.get("content-type") ?? "");
  const body = isJson ? jsonError(text) : null;
  const fallback = text.trim() !== "" && !isJson ? text.trim() : (reason ?? `HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ""}`);
  return new TtrError({
    _tag: (body?._tag as TtrErrorTag | undefined) ?? tagOf(res.status),
    status: res.status,
    message: body?.message ?? fallback,
    reason,
    retryAfter,
  });
}

/**
 * The TtrError for a request that got no answer, or whose answer broke off
 * before its body had arrived (`what` says which): a body cut short is not
 * an answer either.
 */
export function transportError(method: string, url: string, cause: unknown, what = "got no answer"): TtrError<"Transport"> {
  const why = cause instanceof Error ? (cause.cause instanceof Error ? cause.cause.message : cause.message) : String(cause);
  return new TtrError({ _tag: "Transport", status: 0, message: `${method} ${url} ${what}: ${why}`, cause });
}

/**
 * The TtrError for a redirect. The client follows none: a redirect would
 * send the API key to the new address, and fetch turns a POST redirected by
 * 301 or 302 into a bodiless GET, whose answer would pass for the call's own.
 * A browser hides the redirect (status 0, no Location).
 */
export function redirectError(method: string, url: string, res: Response): TtrError<"HttpError"> {
  const location = res.headers.get("location");
  const to = location === null ? "" : ` to ${location}`;
  return new TtrError({
    _tag: "HttpError",
    status: res.status,
    message: `${method} ${url} answered a redirect (${res.status || "opaque"})${to}; the client follows no redirects: set baseUrl to where the api answers`,
  });
}

/** The TtrError for a 2xx answer whose body is not the JSON the call expects. */
export function notJsonError(method: string, url: string, res: Response, text: string): TtrError<"HttpError"> {
  const type = res.headers.get("content-type");
  const start = text.trim().slice(0, 80);
  return new TtrError({
    _tag: "HttpError",
    status: res.status,
    message: `${method} ${url} answered ${res.status} with a body that is not JSON${type === null ? "" : ` (${type})`}${start === "" ? ": empty" : `: ${start}`}`,
  });
}
