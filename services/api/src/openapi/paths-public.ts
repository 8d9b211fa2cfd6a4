// The public endpoints that schedule and cancel: /schedule (any method),
// /cancel, /declare and /bulk.
import { errorAnswer, type Json, jsonAnswer, ref, response, SECURITY, storeAnswers } from "./common.js";

const header = (name: string, description: string, schema: Json = { type: "string" }, required = false): Json => ({
  name,
  in: "header",
  required,
  description,
  schema,
});

const SCHEDULE_HEADERS = [
  header("ttr-url", "The absolute URL to send the request to. Missing: 400 with no body; not absolute: `Invalid URL: <value>`.", { type: "string" }, true),
  header(
    "ttr-scheduled-at",
    "When to send it: an ISO 8601 date or date-time (`2026-11-22`, `2026-11-22T10:00:00Z`, with an offset or without, read as UTC), `now`, " +
      "either followed by pipe operations such as `now | add 1h` or `2026-11-22 | subtract 30m` (a whole number, negative allowed, and s, m, h or d), " +
      "or `cron(<five fields>[, <IANA time zone>])` for a recurring trigger (UTC by default).",
    { type: "string" },
    true,
  ),
  header("ttr-custom-key", "An idempotency key: a pending trigger or active recurring trigger with this key is updated instead of duplicated. At most 500 characters."),
  header("ttr-tags", "Up to 10 tags separated by commas, each 1 to 50 characters from a-z, 0-9, `_`, `-`."),
  header("ttr-title", "A label shown in the dashboard, at most 200 characters."),
  header("ttr-trigger-id", "The ID of a registered one-shot (with a date or `now`) or an active recurring trigger (with `cron(...)`) to edit.", { type: "string" }),
  header("ttr-run-missed", "`true` sends a past-dated one-shot at once instead of storing it as skipped.", { type: "string", enum: ["true", "false"] }),
];

const scheduleResponses: Json = {
  "200": jsonAnswer("The trigger was created or updated. A HEAD request gets the same headers and no body.", ref("ScheduleResult")),
  "400": errorAnswer(
    "A check failed, in this order: `ttr-api-key` or `ttr-url` missing (no body); `Header <name> must be sent once` (a `ttr-` header other than `ttr-tags` sent on more than one line); `Failed to read request body`; `Invalid URL: <url>`; " +
      "`Maximum 10 tags allowed`; `Tag too long (max 50 chars): <tag>`; `Invalid tag (only a-z 0-9 _ - allowed): <tag>`; " +
      "`Title too long (max 200 chars)`; `Custom key too long (max 500 chars)`; then, after the key, `Invalid date: <date>`, " +
      "`Unknown pipe operation: <op>`, `Invalid duration: <amount>` or `Invalid cron expression: <details>`.",
    "BadRequestError",
    true,
  ),
  "401": errorAnswer("`Invalid api key`: the key is empty or unknown.", "UnauthorizedError"),
  "402": errorAnswer("The project's monthly quota is used up.", "QuotaExceededError"),
  "404": errorAnswer("`Trigger not found` or `Generator not found` for `ttr-trigger-id`.", "NotFoundError"),
  "410": errorAnswer("`Job is no longer in registered state` or `Generator is no longer active`.", "GoneError"),
  "413": response("PayloadTooLarge"),
  ...storeAnswers(),
};

function scheduleOperation(method: string): Json {
  const carriesBody = !["get", "head", "options"].includes(method);
  const op: Json = {
    operationId: `schedule${method[0]!.toUpperCase()}${method.slice(1)}`,
    tags: ["Scheduling"],
    summary: `Schedule a ${method.toUpperCase()} request`,
    description:
      `Creates or edits one trigger that sends a ${method.toUpperCase()} request to \`ttr-url\` at \`ttr-scheduled-at\`. ` +
      "Every header not starting with `ttr-` (apart from connection-level ones) is stored and sent with it. Uses one unit of the monthly quota.",
    security: SECURITY.apiKeyHeader,
    parameters: SCHEDULE_HEADERS,
    responses: scheduleResponses,
  };
  if (carriesBody) {
    op.requestBody = {
      required: false,
      description: "Stored as raw bytes and sent unchanged, up to 1 MiB.",
      content: { "*/*": { schema: {} } },
    };
  }
  return op;
}

const SCHEDULE_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

const schedule: Json = {
  description: "Any HTTP method is accepted and is the method the trigger sends. For GET, HEAD and OPTIONS no body is read or stored.",
  "x-any-method": "post",
  ...Object.fromEntries(SCHEDULE_METHODS.map((m) => [m, scheduleOperation(m)])),
};

const cancel: Json = {
  delete: {
    operationId: "cancel",
    tags: ["Scheduling"],
    summary: "Cancel a trigger or recurring trigger",
    description:
      "By ID or custom key: a registered, skipped or retrying one-shot, or an active recurring trigger with its pending instance. " +
      "A queued or running trigger is not cancelled (410) and still fires. Uses no quota.",
    security: SECURITY.apiKeyHeader,
    parameters: [
      header("ttr-trigger-id", "The trigger's or recurring trigger's ID. Send this or `ttr-custom-key`, not both."),
      header("ttr-custom-key", "The custom key; a recurring trigger with this key is cancelled before a one-shot."),
    ],
    responses: {
      "204": { description: "Cancelled. No body." },
      "400": errorAnswer(
        "A check failed, in this order: `ttr-api-key` missing (no body); `Header <name> must be sent once` (a `ttr-` header other than `ttr-tags` sent on more than one line); `Must provide either ttr-trigger-id or ttr-custom-key header`; `Provide either ttr-trigger-id or ttr-custom-key, not both`.",
        "BadRequestError",
        true,
      ),
      "401": errorAnswer("`Invalid api key`.", "UnauthorizedError"),
      "404": errorAnswer("`Job not found`, for one-shots and recurring triggers alike.", "NotFoundError"),
      "410": errorAnswer("`Generator already cancelled` or `Job is no longer cancellable (status=<status>)`.", "GoneError"),
      ...storeAnswers(),
    },
  },
};

/** What /declare and /bulk share: content type, shape, credentials, then the items. */
function jsonEndpointAnswers(words: { items: string; item: string }): Json {
  return {
    "400": errorAnswer(
      `Not valid JSON, or not of the body's shape: no body (checked before the credentials). Then, by item in order: \`Duplicate customKey in ${words.items}: <key>\`, ` +
        `\`${words.item} <key>: duplicate tag "<tag>" in tags\`, \`${words.item} <key>: <date error>\`, or a title over 200 characters. ` +
        "`<key>` is `(no customKey)` for keyless items. A 400 changes nothing.",
      "BadRequestError",
      true,
    ),
    "401": errorAnswer("`Invalid api key`, or `Unauthorized` with no usable credentials.", "UnauthorizedError"),
    "413": response("PayloadTooLarge"),
    "415": response("UnsupportedMediaType"),
    ...storeAnswers(),
  };
}

const declare: Json = {
  post: {
    operationId: "declare",
    tags: ["Scheduling"],
    summary: "Make the pending triggers of a tag match a list",
    description:
      "Adds, updates and cancels pending triggers carrying `tag` so that they match `items`. Every item is checked before anything is written. " +
      "Uses no quota. Bodies up to 10 MiB.",
    security: SECURITY.apiKeyOrSession,
    requestBody: { required: true, content: { "application/json": { schema: ref("DeclareBody") } } },
    responses: {
      "200": jsonAnswer("The declaration was applied.", ref("DeclareResult")),
      ...jsonEndpointAnswers({ items: "items", item: "Item" }),
      "403": response("Forbidden"),
    },
  },
};

const bulk: Json = {
  post: {
    operationId: "bulk",
    tags: ["Scheduling"],
    summary: "Upsert and cancel many triggers at once",
    description: "Upserts by custom key across the whole project and cancels by ID, custom key or tag, in one all-or-nothing call. Uses no quota. Bodies up to 10 MiB.",
    security: SECURITY.apiKey,
    requestBody: { required: true, content: { "application/json": { schema: ref("BulkBody") } } },
    responses: {
      "200": jsonAnswer("Applied.", ref("BulkResult")),
      ...jsonEndpointAnswers({ items: "upserts", item: "Upsert" }),
    },
  },
};

export const PUBLIC_PATHS: Json = { "/schedule": schedule, "/cancel": cancel, "/declare": declare, "/bulk": bulk };
