// Errors are values with a `_tag` (docs/api/errors.md). Route handlers throw them; one
// express middleware renders them. `emptyBody` marks the 400s whose response
// carries no body at all.

export type ErrorTag =
  | "BadRequest"
  | "Unauthorized"
  | "QuotaExceeded"
  | "Forbidden"
  | "NotFound"
  | "Gone"
  | "PayloadTooLarge"
  | "UnsupportedMediaType"
  | "TooManyRequests"
  | "Unavailable";

const STATUS: Record<ErrorTag, number> = {
  BadRequest: 400,
  Unauthorized: 401,
  QuotaExceeded: 402,
  Forbidden: 403,
  NotFound: 404,
  Gone: 410,
  PayloadTooLarge: 413,
  UnsupportedMediaType: 415,
  TooManyRequests: 429,
  Unavailable: 503,
};

export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly tag: ErrorTag,
    message: string,
    readonly emptyBody = false,
  ) {
    super(message);
    this.name = tag;
    this.status = STATUS[tag];
  }
}

export const badRequest = (message: string): ApiError => new ApiError("BadRequest", message);
/**
 * A 400 whose response has no body (the interface fixes those, see
 * docs/api/errors.md). `reason` is a one-line explanation for people: it goes
 * out in the `ttr-error` response header, never in the body.
 */
export const emptyBadRequest = (reason = ""): ApiError => new ApiError("BadRequest", reason, true);
export const unauthorized = (message = "Unauthorized"): ApiError => new ApiError("Unauthorized", message);
export const invalidApiKey = (): ApiError => new ApiError("Unauthorized", "Invalid api key");
export const quotaExceeded = (limit: number): ApiError =>
  new ApiError("QuotaExceeded", `Monthly quota of ${limit} triggers exceeded`);
export const forbidden = (message: string): ApiError => new ApiError("Forbidden", message);
export const notFound = (message: string): ApiError => new ApiError("NotFound", message);
export const gone = (message: string): ApiError => new ApiError("Gone", message);
export const payloadTooLarge = (limit: string): ApiError =>
  new ApiError("PayloadTooLarge", `Request body larger than ${limit}`);
export const tooManyRequests = (message: string): ApiError => new ApiError("TooManyRequests", message);
/** A store the request needs is down: 503, and the client may try again (Retry-After). */
export const unavailable = (): ApiError => new ApiError("Unavailable", "Storage unavailable, try again");
