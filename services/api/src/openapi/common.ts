// Building blocks of the OpenAPI document (docs/openapi.md): shared
// responses, response headers and security requirements, so that every
// operation states the same answer the same way.
//
// Two extensions carry what OpenAPI 3.1 cannot say and the conformance check
// of the tests (test/support/openapi-conformance.ts) reads:
// - `x-empty-body` on a response: that status may also come with no body and
//   no Content-Type (the 400s of malformed requests); its `headers` are the
//   headers of that variant, as a response's own `headers` are.
// - on a path item, `x-any-method: "<method>"`: every HTTP method not listed
//   is answered as that operation (/schedule stores any method), and
//   `x-deeper-paths: true`: paths below this one, over several segments, get
//   the same answers (the dashboard's own page addresses).

/** A JSON value of the document. */
export type Json = Record<string, unknown>;

export const ref = (name: string, kind: "schemas" | "responses" | "headers" | "parameters" = "schemas"): Json => ({
  $ref: `#/components/${kind}/${name}`,
});

/**
 * The `ttr-error` header: a one-line reason on a refusal answered with no body,
 * for people reading logs or curl output; clients should go by the status.
 */

export const HEADERS: Json = {
  TtrError: {
    description: "Why the request was refused, in one line, when the answer has no body (a 4xx, or the 501). For people: clients go by the status.",
    required: true,
    schema: { type: "string", minLength: 1, maxLength: 300, pattern: "^[\\x20-\\x7e]+$" },
  },
  RetryAfter: {
    description: "Seconds to wait before trying again.",
    required: true,
    schema: { type: "string", pattern: "^[0-9]+$" },
  },
};

const ttrError = { "ttr-error": ref("TtrError", "headers") };
const json = (schema: Json) => ({ "application/json": { schema } });

/** Responses every operation may give, by component name. */
export const RESPONSES: Json = {
  NoSuchRoute: {
    description:
      "The path does not exist, or its endpoint does not take this method (for example `POST /cancel` or `GET /declare`). No body. " +
      "Paths match exactly: letter case and a trailing slash count.",
    headers: ttrError,
  },
  Unauthorized: {
    description: "No credentials, or an API key that does not exist (`Invalid api key`).",
    content: json(ref("UnauthorizedError")),
  },
  Forbidden: {
    description: "A state-changing request carrying a dashboard session cookie came from another site (`Cross-site request refused`).",
    content: json(ref("ForbiddenError")),
  },
  PayloadTooLarge: {
    description: "The request body is over the endpoint's limit. A body far over it is not read and the connection is closed after the answer.",
    content: json(ref("PayloadTooLargeError")),
  },
  UnsupportedMediaType: {
    description: "A Content-Type other than `application/json` (parameters and letter case aside). A missing Content-Type is read as JSON.",
    content: { "text/plain": { schema: { type: "string", pattern: "^Unsupported content-type: " } } },
  },
  HeadersTooLarge: {
    description: "The request headers are over 16 KiB. No body; the connection is closed.",
    headers: ttrError,
  },
  HeadersTimeout: {
    description: "The request line and headers did not all arrive within 20 seconds. No body; the connection is closed.",
    headers: ttrError,
  },
  ExpectationFailed: {
    description: "An `Expect` header other than `100-continue`. No body; the connection is closed.",
    headers: ttrError,
  },
  TransferCodingNotImplemented: {
    description: "A `Transfer-Encoding` other than `chunked` alone, such as `gzip, chunked`. No body; the connection is closed.",
    headers: ttrError,
  },
  InternalError: {
    description: "A bug in ttr. Nothing about the request is implied.",
    content: json(ref("InternalErrorError")),
  },
  TooManyFailedAuthentications: {
    description:
      "This client address failed to authenticate too often in the last minute (TTR_AUTH_FAILURES_PER_MINUTE, 600 by default): " +
      "requests carrying credentials from it are answered this way, unread, until Retry-After seconds have passed.",
    headers: { "Retry-After": ref("RetryAfter", "headers") },
    content: json(ref("TooManyRequestsError")),
  },
  Unavailable: {
    description:
      "PostgreSQL or Redis does not answer, or PostgreSQL cannot take writes: read-only, out of disk (`Storage unavailable, try again`); " +
      "or a dashboard read ran past its time limit. Nothing was changed, except that a write PostgreSQL had already received " +
      "when it stopped answering may still take effect once it answers again; try again after Retry-After seconds.",
    headers: { "Retry-After": ref("RetryAfter", "headers") },
    content: json(ref("UnavailableError")),
  },
};

export const response = (name: string): Json => ref(name, "responses");

/** A response with a JSON error body of `schema`; `emptyToo` when the same status also comes with no body. */
export function errorAnswer(description: string, schema: string, emptyToo = false): Json {
  const out: Json = { description, content: json(ref(schema)) };
  if (emptyToo) {
    out.headers = { "ttr-error": { description: "On the answer with no body only.", schema: { type: "string" } } };
    out["x-empty-body"] = { headers: ttrError };
  }
  return out;
}

export function jsonAnswer(description: string, schema: Json, headers?: Json): Json {
  return headers ? { description, headers, content: json(schema) } : { description, content: json(schema) };
}

/** The answers to how a request is sent rather than what it asks: any operation may give them. */
export const transportAnswers = (): Json => ({
  "408": response("HeadersTimeout"),
  "417": response("ExpectationFailed"),
  "431": response("HeadersTooLarge"),
  "501": response("TransferCodingNotImplemented"),
});

/** Those, 500 and 503: what any endpoint that reads the database may answer. */
export const storeAnswers = (): Json => ({
  ...transportAnswers(),
  "500": response("InternalError"),
  "503": response("Unavailable"),
});

// ---- security --------------------------------------------------------------

export const SECURITY_SCHEMES: Json = {
  apiKey: {
    type: "apiKey",
    in: "header",
    name: "ttr-api-key",
    description: "A project's API key (`ttr_` followed by at least 32 URL-safe characters), created with the `ttr` admin command.",
  },
  bearer: {
    type: "http",
    scheme: "bearer",
    description: "The same API key sent as `Authorization: Bearer <key>`. When `ttr-api-key` is sent too, only `ttr-api-key` is checked.",
  },
  session: {
    type: "apiKey",
    in: "cookie",
    name: "ttr_session",
    description: "The dashboard's session cookie, set by `POST /auth/login` (HttpOnly, SameSite=Strict).",
  },
};

/** Alternatives: any one of them is enough. */
export const SECURITY = {
  apiKeyHeader: [{ apiKey: [] }],
  apiKey: [{ apiKey: [] }, { bearer: [] }],
  apiKeyOrSession: [{ apiKey: [] }, { bearer: [] }, { session: [] }],
  session: [{ session: [] }],
  none: [],
} as const;
