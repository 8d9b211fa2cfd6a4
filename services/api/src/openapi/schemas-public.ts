// Schemas of the public endpoints' bodies: errors, /schedule, /declare,
// /bulk and tag policies. Answers are closed (`additionalProperties: false`)
// so a field the api starts sending without documenting it fails the tests'
// conformance check; request bodies stay open, as the api ignores unknown
// fields.
import { type Json, ref } from "./common.js";

const uuid = { type: "string", format: "uuid" } as const;
const time = { type: "string", format: "date-time", description: "ISO 8601 in UTC with milliseconds, e.g. `2026-11-22T10:00:00.000Z`." } as const;
const kind = { type: "string", enum: ["job", "generator"], description: "`job`: a one-shot trigger or an instance; `generator`: a recurring trigger." } as const;
const nullable = (schema: Json): Json => ({ oneOf: [schema, { type: "null" }] });

/** `{_tag, message}` with `_tag` fixed for its status. */
function errorSchema(tag: string, status: number, messages: string): Json {
  return {
    type: "object",
    description: `The body of a ${status} answer. ${messages}`,
    required: ["_tag", "message"],
    additionalProperties: false,
    properties: {
      _tag: { type: "string", const: tag },
      message: { type: "string", description: "For people; not to be parsed." },
    },
  };
}

const ERRORS: Json = {
  BadRequestError: errorSchema("BadRequest", 400, "An invalid header, field or value; only the first failed check is reported."),
  UnauthorizedError: errorSchema("Unauthorized", 401, "`Invalid api key`, `Unauthorized` or, at sign-in, `Invalid credentials`."),
  QuotaExceededError: errorSchema("QuotaExceeded", 402, "`Monthly quota of <limit> triggers exceeded`; lasts until the month ends (UTC) or the quota changes."),
  ForbiddenError: errorSchema("Forbidden", 403, "`Cross-site request refused`."),
  NotFoundError: errorSchema("NotFound", 404, "The trigger, recurring trigger or policy does not exist in the caller's project."),
  GoneError: errorSchema("Gone", 410, "The trigger exists but can no longer be edited, cancelled, replayed or retried."),
  PayloadTooLargeError: errorSchema("PayloadTooLarge", 413, "The body is over the endpoint's limit."),
  TooManyRequestsError: errorSchema("TooManyRequests", 429, "Too many failed sign-ins for this email or address, or too many failed authentications from this address."),
  InternalErrorError: errorSchema("InternalError", 500, "A bug in ttr."),
  UnavailableError: errorSchema("Unavailable", 503, "A store is down or a read took too long; nothing was changed."),
};

const SCHEDULE: Json = {
  ScheduleResult: {
    type: "object",
    required: ["triggerId", "scheduledAt", "operation", "kind", "monthQuotaRemaining"],
    additionalProperties: false,
    properties: {
      triggerId: { ...uuid, description: "The one-shot trigger's ID, or the recurring trigger's; `/cancel` takes either." },
      scheduledAt: { ...time, description: "The resolved time of a one-shot, or the time of a recurring trigger's next instance." },
      operation: { type: "string", enum: ["schedule", "reschedule"], description: "`schedule`: created; `reschedule`: an existing trigger was updated." },
      kind,
      monthQuotaRemaining: { type: "integer", minimum: 0, description: "Triggers left in this month's quota, after this call's unit." },
    },
  },
};

const itemBody = {
  description:
    "Omitted or null: no body. An object, array, number, boolean or string is sent as compact JSON (a string keeps its quotes). " +
    "`{\"_tag\":\"text\",\"value\":\"…\"}` is sent as UTF-8 text, `{\"_tag\":\"base64\",\"value\":\"…\"}` as the decoded bytes; " +
    "an empty value sends no body. No Content-Type is added.",
};

const DECLARE: Json = {
  Item: {
    type: "object",
    description: "One trigger as it should be. Optional fields are omitted, never null (except `body`). Unknown fields are ignored.",
    required: ["url"],
    properties: {
      url: { type: "string", description: "The target. Not checked here: an invalid URL fails when it fires (InvalidUrl error)." },
      scheduledAt: {
        type: "string",
        default: "now",
        description: "A date (`2026-11-22`, `2026-11-22T10:00:00Z`, with an offset or without, read as UTC), `now`, either followed by `| add <n><unit>` or `| subtract <n><unit>` (units s, m, h, d), or `cron(<five fields>[, <IANA time zone>])`.",
      },
      customKey: { type: "string", description: "The match key; keyless items are replaced on every call." },
      method: { type: "string", default: "GET", description: "Upper-cased; not checked." },
      headers: {
        type: "object",
        additionalProperties: { type: "string" },
        description: "Sent as listed (names lowercased) and stored in plain text: never put an API key here.",
      },
      body: itemBody,
      title: { type: "string", maxLength: 200, description: "A label for the dashboard (one-shot triggers)." },
      tags: { type: "array", items: { type: "string" }, description: "A tag listed twice is refused. Not format-checked." },
    },
  },
  DeclareBody: {
    type: "object",
    required: ["tag", "items"],
    properties: {
      tag: { type: "string", description: "Added to every item's tags; not format-checked." },
      items: { type: "array", items: ref("Item"), description: "The complete list; `[]` cancels every cancellable trigger with the tag." },
      runMissed: { type: "boolean", default: false, description: "Past-dated one-shot items fire at once instead of being skipped." },
    },
  },
  Operation: {
    type: "object",
    required: ["operation", "customKey", "kind", "id"],
    additionalProperties: false,
    properties: {
      operation: { type: "string", enum: ["added", "skipped", "unchanged", "updated", "cancelled"] },
      customKey: { type: ["string", "null"], description: "null for keyless items and instances." },
      kind,
      id: { ...uuid, description: "For a recurring trigger, the recurring trigger's ID." },
      changedFields: {
        type: "array",
        description: "Only on `updated`: `scheduledAt`, `cronExpr`, `tz`, `url`, `method`, `headers`, `body`, `title`, `tags`, or a kind switch `kind:job→generator` / `kind:generator→job`.",
        items: { type: "string" },
      },
    },
  },
  DeclareSummary: {
    type: "object",
    required: ["unchanged", "added", "skipped", "updated", "cancelled"],
    additionalProperties: false,
    properties: Object.fromEntries(["unchanged", "added", "skipped", "updated", "cancelled"].map((k) => [k, { type: "integer", minimum: 0 }])),
  },
  DeclareResult: {
    type: "object",
    required: ["tag", "summary", "operations"],
    additionalProperties: false,
    properties: {
      tag: { type: "string" },
      summary: ref("DeclareSummary"),
      operations: {
        type: "array",
        items: ref("Operation"),
        description: "One entry per item in request order, then one per cancelled trigger (one-shots and instances first, then recurring triggers).",
      },
    },
  },
};

const BULK: Json = {
  Cancel: {
    description: "A string names a trigger or recurring trigger by ID if one has that ID, otherwise by custom key; an object names exactly one of `id`, `customKey` or `tag`.",
    oneOf: [
      { type: "string" },
      { type: "object", required: ["id"], properties: { id: { type: "string" } }, not: { anyOf: [{ required: ["customKey"] }, { required: ["tag"] }] } },
      { type: "object", required: ["customKey"], properties: { customKey: { type: "string" } }, not: { anyOf: [{ required: ["id"] }, { required: ["tag"] }] } },
      { type: "object", required: ["tag"], properties: { tag: { type: "string" } }, not: { anyOf: [{ required: ["id"] }, { required: ["customKey"] }] } },
    ],
  },
  BulkBody: {
    type: "object",
    description: "`{}` is valid. All or nothing: a failure changes nothing.",
    properties: {
      upserts: { type: "array", items: ref("Item"), description: "Items as for /declare; keys match across the whole project and no tag is added." },
      cancels: { type: "array", items: ref("Cancel"), description: "Targets that match nothing cancellable are skipped." },
      runMissed: { type: "boolean", default: false },
    },
  },
  CancelledEntry: {
    type: "object",
    required: ["id", "kind", "customKey"],
    additionalProperties: false,
    properties: { id: uuid, kind, customKey: { type: ["string", "null"] } },
  },
  BulkResult: {
    type: "object",
    required: ["upserts", "cancelled", "summary"],
    additionalProperties: false,
    properties: {
      upserts: { type: "array", items: ref("Operation"), description: "In request order." },
      cancelled: { type: "array", items: ref("CancelledEntry") },
      summary: {
        type: "object",
        required: ["added", "updated", "unchanged", "skipped", "cancelled"],
        additionalProperties: false,
        properties: Object.fromEntries(["added", "updated", "unchanged", "skipped", "cancelled"].map((k) => [k, { type: "integer", minimum: 0 }])),
      },
    },
  },
};

// ---- tag policies ------------------------------------------------------------

const delay = { type: ["integer", "null"], minimum: 0, maximum: 86400 } as const;

/** Request fields of a policy; integers are rounded down when stored, and range messages come from the server. */
const policyFields: Json = {
  tag: { type: "string", description: "1 to 50 characters from a-z, 0-9, `_`, `-`; case-sensitive." },
  throughput: nullable(ref("Throughput")),
  maxConcurrent: { type: ["number", "null"], description: "At least 1; null for no limit." },
  requestTimeoutSeconds: { type: ["number", "null"], description: "1 to 3600; null for the 300-second default." },
  retryStrategy: { type: "string", enum: ["none", "fixed", "exponential"] },
  retryInitialDelaySeconds: { type: ["number", "null"], description: "0 to 86400; required with `fixed` and `exponential`." },
  retryMaxDelaySeconds: { type: ["number", "null"], description: "0 to 86400; caps exponential delays." },
  retryMaxAttempts: { type: ["number", "null"], description: "At least 1, counting the first attempt; null for unlimited." },
  retryJitter: { type: "boolean", description: "Multiplies each delay by a random factor from 0.5 to 1.5." },
  retryOn: { type: "string", enum: ["network_only", "5xx_and_network", "non_2xx"] },
  signing: { type: "boolean", default: false, description: "Each attempt carries Standard Webhooks signature headers, keyed by the project's signing secret." },
  honorRetryAfter: { type: "boolean", default: false, description: "A 429 or 503 with Retry-After delays the next retry by at least that, capped by `retryMaxDelaySeconds`." },
  notifyUrl: { type: ["string", "null"], format: "uri", default: null, description: "Receives one POST `{event:\"dead_letter\", execution, trigger}` per dead letter." },
  paused: {
    type: "boolean",
    default: false,
    description: "The tag's triggers wait (as with a throughput rate of 0) while every other setting stays as stored; false resumes them, oldest first, at the pace the limits allow. Shown only when true.",
  },
};

const POLICIES: Json = {
  Throughput: {
    type: "object",
    description: "Window (`<n><unit>`, unit s, m, h or d, no leading zeros) to rate (a number ≥ 0; decimals allowed). At most 8 windows; `{}` or null: no limit.",
    propertyNames: { pattern: "^[1-9][0-9]*[smhd]$" },
    additionalProperties: { type: "number", minimum: 0 },
  },
  TagPolicyCreate: {
    type: "object",
    description: "Creates the tag's policy, or replaces it whole (omitted fields return to their defaults). Needs a non-empty throughput, maxConcurrent, requestTimeoutSeconds or a retry strategy (or one of `signing: true`, a `notifyUrl`, `paused: true`). Unknown fields are ignored.",
    required: ["tag"],
    properties: policyFields,
  },
  TagPolicyUpdate: {
    type: "object",
    description: "Changes only the fields sent; `{}` only updates `updatedAt`. null clears a nullable setting; `tag`, `retryStrategy`, `retryJitter`, `retryOn`, `signing`, `honorRetryAfter` and `paused` cannot be null. A new `tag` renames the policy.",
    properties: { ...policyFields, tag: { type: "string" } },
  },
  TagPolicy: {
    type: "object",
    required: [
      "id", "projectId", "tag", "throughput", "maxConcurrent", "requestTimeoutSeconds", "retryStrategy", "retryInitialDelaySeconds",
      "retryMaxDelaySeconds", "retryMaxAttempts", "retryJitter", "retryOn", "createdAt", "updatedAt",
    ],
    additionalProperties: false,
    properties: {
      id: uuid,
      projectId: uuid,
      tag: { type: "string", pattern: "^[a-z0-9_-]{1,50}$" },
      throughput: nullable(ref("Throughput")),
      maxConcurrent: { type: ["integer", "null"], minimum: 1 },
      requestTimeoutSeconds: { type: ["integer", "null"], minimum: 1, maximum: 3600 },
      retryStrategy: policyFields.retryStrategy,
      retryInitialDelaySeconds: delay,
      retryMaxDelaySeconds: delay,
      retryMaxAttempts: { type: ["integer", "null"], minimum: 1 },
      retryJitter: { type: "boolean" },
      retryOn: policyFields.retryOn,
      signing: { type: "boolean" },
      honorRetryAfter: { type: "boolean" },
      notifyUrl: { type: ["string", "null"], format: "uri" },
      paused: { type: "boolean", description: "Present (and true) only while the tag is paused." },
      createdAt: time,
      updatedAt: time,
    },
  },
};

export const PUBLIC_SCHEMAS: Json = { ...ERRORS, ...SCHEDULE, ...DECLARE, ...BULK, ...POLICIES };
export { kind, nullable, time, uuid };
