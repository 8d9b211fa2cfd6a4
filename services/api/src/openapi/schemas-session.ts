// Schemas of the dashboard's data endpoints and the service endpoints:
// triggers and executions as the dashboard reads them, sign-in, project
// usage, per-minute outcome counts, the overview, health and readiness.
import { type Json, ref } from "./common.js";
import { kind, time, uuid } from "./schemas-public.js";

const nullableTime = { type: ["string", "null"], format: "date-time" } as const;
const count = { type: "integer", minimum: 0 } as const;
const nextCursor = { type: ["string", "null"], description: "Pass as `cursor` for the next page; null on the last page. Opaque." } as const;

const JOB_STATUSES = ["registered", "skipped", "queued", "running", "retrying", "completed", "cancelled"];

const TRIGGERS: Json = {
  Trigger: {
    type: "object",
    description: "A one-shot trigger, an instance of a recurring trigger (with `generatorId`), or a recurring trigger (`kind` `generator`). Absent values are null.",
    required: ["id", "kind", "status", "customKey", "title", "url", "method", "headers", "body", "tags", "scheduledAt", "cronExpr", "tz", "generatorId", "createdAt", "updatedAt"],
    additionalProperties: false,
    properties: {
      id: uuid,
      kind,
      status: {
        type: "string",
        enum: [...JOB_STATUSES, "active"],
        description: "One-shots and instances: registered, skipped, queued, running, retrying, completed, cancelled. Recurring triggers: active, cancelled.",
      },
      customKey: { type: ["string", "null"] },
      title: { type: ["string", "null"], description: "Null on a recurring trigger (its title is stored but never shown) and on an instance (it has none)." },
      url: { type: "string" },
      method: { type: "string" },
      headers: { type: "object", additionalProperties: { type: "string" }, description: "As stored and sent; repeated names joined with `, `." },
      body: { type: ["string", "null"], description: "The stored body as UTF-8 text." },
      tags: { type: "array", items: { type: "string" } },
      scheduledAt: nullableTime,
      cronExpr: { type: ["string", "null"] },
      tz: { type: ["string", "null"], description: "IANA time zone of a recurring trigger." },
      generatorId: { type: ["string", "null"], format: "uuid", description: "Set on instances: their recurring trigger." },
      createdAt: time,
      updatedAt: time,
    },
  },
  Execution: {
    type: "object",
    description: "One attempt to send a trigger's request.",
    required: [
      "id", "triggerId", "attemptNumber", "triggeredBy", "status", "plannedAt", "startedAt", "completedAt", "responseStatus",
      "responseHeaders", "responseBody", "responseSize", "errorMessage", "isDeadLetter",
    ],
    additionalProperties: false,
    properties: {
      id: uuid,
      triggerId: uuid,
      attemptNumber: { type: "integer", minimum: 1 },
      triggeredBy: { type: "string", enum: ["scheduler", "retry", "replay"] },
      status: { type: "string", enum: ["planned", "started", "complete", "cancelled"] },
      plannedAt: time,
      startedAt: nullableTime,
      completedAt: nullableTime,
      responseStatus: { type: ["integer", "null"] },
      responseHeaders: { type: ["object", "null"], additionalProperties: { type: "string" }, description: "Lowercase names; repeated headers joined with `, `." },
      responseBody: { type: ["string", "null"], description: "The first 10,240 bytes as UTF-8 text." },
      responseSize: { type: ["integer", "null"], minimum: 0, description: "Body bytes received; 10485760 means 10 MB or more." },
      errorMessage: {
        type: ["string", "null"],
        description: "null when a response arrived. Otherwise `Transport error (<METHOD> <url>)`, `InvalidUrl error (<METHOD> <url>)`, `Decode error (<status> <METHOD> <url>)`, `{\"errorMessage\":\"Request timed out after <N>s\"}` or `Executor died (status=started past reap_after)`.",
      },
      isDeadLetter: { type: "boolean" },
      discardedAt: { ...time, description: "Only on a dead letter discarded in bulk (POST /dead-letters/discard): when. It stays a dead letter but leaves the dead-letter list." },
      notification: {
        type: "object",
        description:
          "Only on a dead letter whose tag policy has a `notifyUrl`, once the notification was tried (docs/delivery-extras.md): `sent`, `retrying` (tries left) or `failed`.",
        required: ["status", "attempts", "error"],
        additionalProperties: false,
        properties: {
          status: { type: "string", enum: ["sent", "retrying", "failed"] },
          attempts: { type: "integer", minimum: 0 },
          error: { type: ["string", "null"] },
        },
      },
    },
  },
  TriggerList: {
    type: "object",
    required: ["triggers", "nextCursor"],
    additionalProperties: false,
    properties: { triggers: { type: "array", items: ref("Trigger"), description: "Newest first." }, nextCursor },
  },
  TriggerDetail: {
    type: "object",
    required: ["trigger", "executions"],
    additionalProperties: false,
    properties: { trigger: ref("Trigger"), executions: { type: "array", items: ref("Execution"), description: "By attemptNumber; empty for a recurring trigger." } },
  },
  ExecutionList: {
    type: "object",
    required: ["executions", "nextCursor"],
    additionalProperties: false,
    properties: { executions: { type: "array", items: ref("Execution"), description: "Newest first." }, nextCursor },
  },
  TriggerBody: {
    type: "object",
    description:
      "A trigger to create (`POST /triggers`) or the new version of one (`PUT /triggers/{id}`): what `/schedule` reads from its method, " +
      "`ttr-` headers, other headers and body, as fields. Unknown fields are ignored.",
    required: ["url", "scheduledAt"],
    properties: {
      url: { type: "string", description: "The absolute URL to send the request to (`ttr-url`)." },
      method: { type: "string", description: "The HTTP method it is sent with; upper-cased. `GET` when omitted or empty." },
      headers: {
        type: "object",
        additionalProperties: { type: "string" },
        description: "Headers sent with it, names as written. No `ttr-` or connection-level names (Connection, Host, Content-Length, …); values without line breaks, in Latin-1.",
      },
      body: { type: ["string", "null"], description: "Sent as UTF-8 bytes, up to 1 MiB; empty or null: no body. Not with GET, HEAD or OPTIONS." },
      scheduledAt: {
        type: "string",
        description: "When, in the grammar of `ttr-scheduled-at`: an ISO 8601 date or date-time, `now`, either with pipe operations (`now | add 1h`), or `cron(<five fields>[, <IANA time zone>])`.",
      },
      customKey: { type: ["string", "null"], description: "`ttr-custom-key`: an idempotency key; empty or null: none." },
      tags: { type: "array", items: { type: "string" }, description: "`ttr-tags`: up to 10, each 1 to 50 of a-z, 0-9, `_`, `-`." },
      title: { type: ["string", "null"], description: "`ttr-title`: a label, at most 200 characters." },
      runMissed: { type: "boolean", description: "`ttr-run-missed`: `true` sends a past-dated one-shot at once instead of storing it as skipped." },
    },
  },
  ExecutionAnswer: {
    type: "object",
    required: ["execution"],
    additionalProperties: false,
    properties: { execution: ref("Execution") },
  },
};

const ACCOUNT: Json = {
  LoginBody: {
    type: "object",
    required: ["email", "password"],
    properties: {
      email: { type: "string", minLength: 1, description: "Not case-sensitive. Longer than 320 characters, it belongs to no user (401)." },
      password: { type: "string", minLength: 1, description: "A user's password has at most 1,024 characters; a longer one is wrong (401)." },
    },
  },
  LoginResult: {
    type: "object",
    required: ["user", "project"],
    additionalProperties: false,
    properties: {
      user: { type: "object", required: ["id", "email"], additionalProperties: false, properties: { id: uuid, email: { type: "string" } } },
      project: { type: "object", required: ["id", "name"], additionalProperties: false, properties: { id: uuid, name: { type: "string" } } },
    },
  },
  ProjectAnswer: {
    type: "object",
    required: ["project"],
    additionalProperties: false,
    properties: {
      project: {
        type: "object",
        required: ["id", "name", "monthlyQuota", "usedThisMonth"],
        additionalProperties: false,
        properties: {
          id: uuid,
          name: { type: "string" },
          monthlyQuota: count,
          usedThisMonth: { ...count, description: "Units of the monthly quota used this calendar month (UTC)." },
        },
      },
    },
  },
  Stats: {
    type: "object",
    required: ["buckets"],
    additionalProperties: false,
    properties: {
      buckets: {
        type: "array",
        description: "One bucket per minute, oldest first.",
        items: {
          type: "object",
          required: ["minute", "success", "httpFailure", "networkFailure", "deadLetters"],
          additionalProperties: false,
          properties: { minute: time, success: count, httpFailure: count, networkFailure: count, deadLetters: count },
        },
      },
    },
  },
};

const nullableMs = { type: ["number", "null"], minimum: 0 } as const;
const capped = (what: string) => ({ ...count, description: `${what}; stops at \`countLimit\`, which then means at least that many.` });

const OVERVIEW: Json = {
  Overview: {
    type: "object",
    description: "A project at a glance, for the dashboard's overview page.",
    required: ["countLimit", "lateness", "queue", "held", "upcoming"],
    additionalProperties: false,
    properties: {
      countLimit: { ...count, description: "Where backlog counts stop (10,000): a count equal to it means at least that many." },
      lateness: {
        type: "array",
        description:
          "How late first attempts started, one bucket per minute of the last `minutes` minutes, oldest first: for the first attempts that started in that minute, how many, and the 50th and 99th percentiles (nearest rank, reported as the upper bound of a histogram bucket: at most 9 % above, never below, never above the maximum) and the exact maximum of start time minus scheduled time, in milliseconds; null for a minute with none. Retries and replays are not counted.",
        items: {
          type: "object",
          required: ["minute", "started", "p50Ms", "p99Ms", "maxMs"],
          additionalProperties: false,
          properties: { minute: time, started: count, p50Ms: nullableMs, p99Ms: nullableMs, maxMs: nullableMs },
        },
      },
      queue: {
        type: "object",
        required: ["waiting", "oldestPlannedAt", "running"],
        additionalProperties: false,
        properties: {
          waiting: capped("Attempts handed to the queue and not started yet (first attempts, retries and replays; held ones are not in the queue)"),
          oldestPlannedAt: { ...nullableTime, description: "When the oldest waiting attempt was due; null when none waits." },
          running: capped("Triggers running now"),
        },
      },
      held: {
        type: "array",
        description: "Due attempts a tag policy holds back, per tag, the largest backlogs first; at most 50 tags.",
        items: {
          type: "object",
          required: ["tag", "held", "oldestPlannedAt"],
          additionalProperties: false,
          properties: {
            tag: { type: "string" },
            held: { ...capped("Attempts held by this tag"), minimum: 1 },
            oldestPlannedAt: { ...time, description: "When the oldest of them was due." },
          },
        },
      },
      upcoming: {
        type: "object",
        description: "Registered one-shots and instances of recurring triggers due from the start of the current minute on (a recurring trigger's next run only).",
        required: ["slotMinutes", "slots", "next"],
        additionalProperties: false,
        properties: {
          slotMinutes: { type: "integer", minimum: 1, description: "Minutes per slot (5)." },
          slots: {
            type: "array",
            description: "The next hour in slots of `slotMinutes`, earliest first: how many are due in each.",
            items: {
              type: "object",
              required: ["from", "due"],
              additionalProperties: false,
              properties: { from: time, due: capped("Triggers due in this slot") },
            },
          },
          next: {
            type: "array",
            description: "The next ten due, earliest first.",
            items: {
              type: "object",
              required: ["id", "customKey", "title", "url", "method", "tags", "scheduledAt", "generatorId"],
              additionalProperties: false,
              properties: {
                id: uuid,
                customKey: { type: ["string", "null"] },
                title: { type: ["string", "null"] },
                url: { type: "string" },
                method: { type: "string" },
                tags: { type: "array", items: { type: "string" } },
                scheduledAt: time,
                generatorId: { type: ["string", "null"], format: "uuid", description: "Set on instances: their recurring trigger." },
              },
            },
          },
        },
      },
    },
  },
};

const SERVICE: Json = {
  Health: {
    type: "object",
    required: ["status"],
    additionalProperties: false,
    properties: { status: { const: "ok" } },
  },
  Readiness: {
    type: "object",
    required: ["status"],
    additionalProperties: false,
    properties: {
      status: { type: "string", enum: ["ready", "unavailable"] },
      down: { type: "array", items: { type: "string", enum: ["postgres", "redis"] }, description: "The stores that did not answer in time." },
    },
  },
};

export const SESSION_SCHEMAS: Json = { ...TRIGGERS, ...ACCOUNT, ...OVERVIEW, ...SERVICE };
