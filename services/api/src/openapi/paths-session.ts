// Sign-in and the dashboard's data endpoints. Everything but /auth/* takes a
// dashboard session or, for scripts, the project's API key, and answers the
// same either way.
import { errorAnswer, type Json, jsonAnswer, ref, response, SECURITY, storeAnswers } from "./common.js";

const query = (name: string, description: string, schema: Json = { type: "string" }): Json => ({ name, in: "query", required: false, description, schema });
const idParameter = { name: "id", in: "path", required: true, description: "A trigger's or recurring trigger's ID.", schema: { type: "string" } };

const background = {
  name: "x-ttr-background",
  in: "header",
  required: false,
  description: "`1` on the dashboard's own periodic refreshes: the session is checked but its inactivity timer does not restart.",
  schema: { type: "string" },
};

const unauthorized = errorAnswer("No live session and no valid API key: `Unauthorized`, or `Invalid api key` for an unknown key.", "UnauthorizedError");
const badQuery = errorAnswer(
  "A query parameter out of range, of an unknown value, or given twice (for example `Invalid limit: 0 (an integer from 1 to 500)`, `Invalid cursor`).",
  "BadRequestError",
);
const notFound = errorAnswer("`Trigger not found`.", "NotFoundError");
const reads = storeAnswers();

const limit = query("limit", "Page size, 1 to 500; 50 by default.", { type: "string", pattern: "^[0-9]*$" });
const cursor = query("cursor", "The `nextCursor` of the previous page.");

function read(operationId: string, summary: string, description: string, parameters: Json[], answer: Json, extra: Json = {}): Json {
  return {
    get: {
      operationId,
      tags: ["Dashboard data"],
      summary,
      description,
      security: SECURITY.apiKeyOrSession,
      parameters: [...parameters, background],
      responses: { "200": answer, "401": unauthorized, ...extra, ...reads },
    },
  };
}

function sendAgain(action: "replay" | "retry"): Json {
  const replay = action === "replay";
  return {
    parameters: [idParameter],
    post: {
      operationId: replay ? "replayTrigger" : "retryTrigger",
      tags: ["Dashboard data"],
      summary: replay ? "Replay now" : "Retry now",
      description: replay
        ? "Sends a completed one-shot's or instance's request again, as a new attempt triggered by `replay`."
        : "Sends a completed one-shot's or instance's request again as a `retry` attempt, or sends a retrying one's pending retry at once.",
      security: SECURITY.apiKeyOrSession,
      responses: {
        "202": jsonAnswer("The new attempt, planned.", ref("ExecutionAnswer")),
        "401": unauthorized,
        "403": response("Forbidden"),
        "404": notFound,
        "410": errorAnswer(`\`Trigger cannot be ${replay ? "replayed" : "retried"} (status=<status>)\`.`, "GoneError"),
        ...reads,
      },
    },
  };
}

// ---- creating, editing and cancelling from the dashboard --------------------

const triggerBody = { required: true, content: { "application/json": { schema: ref("TriggerBody") } } };

const scheduleChecks =
  "Checked in this order, the first failure reported: the body's format (not JSON, a field of the wrong type, `Invalid method: <method>`, " +
  "`Invalid header name: <name>`, `Header <name> cannot be stored: …`, `Invalid value for header <name>: …`, " +
  "`A <METHOD> request carries no body: …`); then as on `/schedule`: `Invalid URL: <url>`, `Maximum 10 tags allowed`, " +
  "`Tag too long (max 50 chars): <tag>`, `Invalid tag (only a-z 0-9 _ - allowed): <tag>`, `Title too long (max 200 chars)`, " +
  "`Custom key too long (max 500 chars)`; then, after the credentials, `Invalid date: <date>`, `Unknown pipe operation: <op>`, " +
  "`Invalid duration: <amount>` or `Invalid cron expression: <details>`.";

function scheduleAnswers(edit: boolean): Json {
  return {
    "200": jsonAnswer(edit ? "The trigger was updated (or, as on `/schedule`, the pending trigger holding the custom key)." : "The trigger was created or, by its custom key, updated.", ref("ScheduleResult")),
    "400": errorAnswer(scheduleChecks, "BadRequestError"),
    "401": unauthorized,
    "402": errorAnswer("`Monthly quota of <limit> triggers exceeded`.", "QuotaExceededError"),
    "403": response("Forbidden"),
    ...(edit
      ? {
          "404": errorAnswer("`Trigger not found` (a date or `now`, and no one-shot has this ID) or `Generator not found` (`cron(...)`, and no recurring trigger has it).", "NotFoundError"),
          "410": errorAnswer("`Job is no longer in registered state` or `Generator is no longer active`.", "GoneError"),
        }
      : {}),
    "413": errorAnswer("The request is over 4 MiB, or its `body` over 1 MiB.", "PayloadTooLargeError"),
    "415": response("UnsupportedMediaType"),
    ...reads,
  };
}

const createTrigger: Json = {
  operationId: "createTrigger",
  tags: ["Dashboard data"],
  summary: "Create a trigger",
  description:
    "`/schedule` with a JSON body: the same checks in the same order, the same rules (a custom key reschedules its pending trigger) and the same answer. " +
    "Uses one unit of the monthly quota.",
  security: SECURITY.apiKeyOrSession,
  requestBody: triggerBody,
  responses: scheduleAnswers(false),
};

const editTrigger: Json = {
  operationId: "editTrigger",
  tags: ["Dashboard data"],
  summary: "Edit a trigger",
  description:
    "`/schedule` with `ttr-trigger-id`: a date or `now` edits a registered one-shot, `cron(...)` an active recurring trigger, which gets a new pending instance. " +
    "The whole trigger is replaced by the body. Uses one unit of the monthly quota.",
  security: SECURITY.apiKeyOrSession,
  requestBody: triggerBody,
  responses: scheduleAnswers(true),
};

const cancelTrigger: Json = {
  operationId: "cancelTrigger",
  tags: ["Dashboard data"],
  summary: "Cancel a trigger",
  description:
    "`/cancel` by ID: a registered, skipped or retrying one-shot, or an active recurring trigger with its pending instance. A queued or running trigger is not cancelled (410) and still fires. Uses no quota.",
  security: SECURITY.apiKeyOrSession,
  responses: {
    "204": { description: "Cancelled. No body." },
    "401": unauthorized,
    "403": response("Forbidden"),
    "404": errorAnswer("`Job not found`, for one-shots and recurring triggers alike.", "NotFoundError"),
    "410": errorAnswer("`Generator already cancelled` or `Job is no longer cancellable (status=<status>)`.", "GoneError"),
    ...reads,
  },
};

export const SESSION_PATHS: Json = {
  "/auth/login": {
    post: {
      operationId: "login",
      tags: ["Dashboard sessions"],
      summary: "Sign in",
      description: "Checks email and password and starts a dashboard session: the `ttr_session` cookie. Failed attempts are limited per email and address.",
      security: SECURITY.none,
      requestBody: { required: true, content: { "application/json": { schema: ref("LoginBody") } } },
      responses: {
        "200": jsonAnswer("Signed in.", ref("LoginResult"), {
          "Set-Cookie": {
            description: "`ttr_session=<token>; Path=/; HttpOnly; SameSite=Strict` (and `Secure` over HTTPS or when configured), for up to 7 days; the session also ends after 12 hours without a request.",
            required: true,
            schema: { type: "string", pattern: "ttr_session=" },
          },
        }),
        "400": errorAnswer("Not a JSON body with non-empty string `email` and `password`.", "BadRequestError"),
        "401": errorAnswer("`Invalid credentials`.", "UnauthorizedError"),
        "403": response("Forbidden"),
        "413": response("PayloadTooLarge"),
        "429": {
          description: "Too many failed sign-ins for this email or from this address; wait Retry-After seconds.",
          headers: { "Retry-After": ref("RetryAfter", "headers") },
          content: { "application/json": { schema: ref("TooManyRequestsError") } },
        },
        ...reads,
      },
    },
  },
  "/auth/logout": {
    post: {
      operationId: "logout",
      tags: ["Dashboard sessions"],
      summary: "Sign out",
      description: "Ends the session and clears its cookie.",
      security: SECURITY.session,
      responses: { "204": { description: "Signed out. No body." }, "401": unauthorized, "403": response("Forbidden"), ...reads },
    },
  },
  "/triggers": {
    post: createTrigger,
    ...read(
      "listTriggers",
      "List triggers",
      "One-shot triggers, instances and recurring triggers of the project, newest first. An empty parameter means no filter.",
      [
        query("status", "A one-shot status, or `active` / `cancelled` for recurring triggers.", {
          type: "string",
          enum: ["", "registered", "skipped", "queued", "running", "retrying", "completed", "cancelled", "active"],
        }),
        query("tag", "Only triggers carrying this tag."),
        query("kind", "`job` or `generator`.", { type: "string", enum: ["", "job", "generator"] }),
        query("customKey", "Only triggers with this custom key."),
        query("generatorId", "Only the instances of this recurring trigger.", { type: "string" }),
        limit,
        cursor,
      ],
      jsonAnswer("A page of triggers.", ref("TriggerList")),
      { "400": badQuery },
    ),
  },
  "/triggers/{id}": {
    parameters: [idParameter],
    ...read(
      "getTrigger",
      "One trigger with its attempts",
      "The trigger and its executions by attempt number (none for a recurring trigger).",
      [],
      jsonAnswer("The trigger.", ref("TriggerDetail")),
      { "404": notFound },
    ),
    put: editTrigger,
    delete: cancelTrigger,
  },
  "/triggers/{id}/replay": sendAgain("replay"),
  "/triggers/{id}/retry": sendAgain("retry"),
  "/executions": read(
    "listExecutions",
    "List attempts",
    "Executions of the project, newest first.",
    [
      query("triggerId", "Only this trigger's attempts.", { type: "string" }),
      query("deadLetterOnly", "Only the exact lowercase `true` lists dead letters alone; any other value lists everything."),
      limit,
      cursor,
    ],
    jsonAnswer("A page of executions.", ref("ExecutionList")),
    { "400": badQuery },
  ),
  "/project": read("getProject", "Project and quota use", "The project's name, monthly quota and units used this month (UTC).", [], jsonAnswer("The project.", ref("ProjectAnswer"))),
  "/stats": read(
    "getStats",
    "Outcomes per minute",
    "Successes, HTTP failures, network failures and dead letters per minute, for the last `minutes` minutes.",
    [query("minutes", "1 to 1440; 60 by default.", { type: "string", pattern: "^[0-9]*$" })],
    jsonAnswer("The buckets.", ref("Stats")),
    { "400": badQuery },
  ),
  "/overview": read(
    "getOverview",
    "Overview of the project",
    "Lateness of first attempts per minute for the last `minutes` minutes, attempts waiting in the queue and running, the backlog tag policies hold per tag, and the triggers due in the next hour.",
    [query("minutes", "The lateness window, 1 to 1440; 60 by default.", { type: "string", pattern: "^[0-9]*$" })],
    jsonAnswer("The overview.", ref("Overview")),
    { "400": badQuery },
  ),
};
