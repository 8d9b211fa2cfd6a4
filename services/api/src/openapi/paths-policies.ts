// /tag-policies: list, create or replace, change and delete a tag's policy.
import { errorAnswer, type Json, jsonAnswer, ref, response, SECURITY, storeAnswers } from "./common.js";

const one = { type: "object", required: ["tagPolicy"], additionalProperties: false, properties: { tagPolicy: ref("TagPolicy") } };

const VALIDATION =
  "Then a value out of range, first failure only: `Invalid tag (only a-z 0-9 _ - allowed, max 50 chars)`; " +
  "`At least one of throughput, concurrency, timeout, or retry strategy must be specified` (POST); `requestTimeoutSeconds must be between 1 and 3600`; " +
  "`maxConcurrent must be ≥ 1`; `At most 8 throughput windows per policy`; `Throughput rate for '<window>' must be a finite number ≥ 0`; " +
  "`Effective window for '<window>' at rate <rate> exceeds the 30-day maximum`, followed by ` (rates below 1 stretch the window by 1/rate)` when the rate is between 0 and 1; `retryMaxAttempts must be ≥ 1 (or null for unlimited)`; " +
  "`retryInitialDelaySeconds is required (≥0) when retryStrategy is 'fixed' or 'exponential'`; `retryMaxDelaySeconds must be ≥ 0`; " +
  "`retryInitialDelaySeconds must be ≤ 86400 (1 day)`; `retryMaxDelaySeconds must be ≤ 86400 (1 day)`; `notifyUrl must be an absolute http or https URL (max 2048 chars)`; on PUT, `Tag policy for '<tag>' already exists`.";

const bad = errorAnswer(
  `Not valid JSON or not of the body's shape (a wrong type, an unknown retryStrategy or retryOn, a malformed window, a null where none is allowed, no \`tag\` on POST): no body, no Content-Type. ${VALIDATION} A 400 changes nothing.`,
  "BadRequestError",
  true,
);

const unauthorized = errorAnswer("`Invalid api key`, or `Unauthorized` with no usable credentials.", "UnauthorizedError");
const notFound = errorAnswer("`Tag policy not found`: unknown, another project's, or already deleted. On PUT it is checked before the body's values.", "NotFoundError");

const idParameter = { name: "id", in: "path", required: true, description: "The policy's ID.", schema: { type: "string" } };

export const POLICY_PATHS: Json = {
  "/tag-policies": {
    get: {
      operationId: "listTagPolicies",
      tags: ["Tag policies"],
      summary: "List the project's policies",
      description: "Every policy of the project, newest first, without pagination. Query parameters are ignored.",
      security: SECURITY.apiKeyOrSession,
      responses: {
        "200": jsonAnswer("The policies.", {
          type: "object",
          required: ["tagPolicies"],
          additionalProperties: false,
          properties: { tagPolicies: { type: "array", items: ref("TagPolicy") } },
        }),
        "401": unauthorized,
        ...storeAnswers(),
      },
    },
    post: {
      operationId: "putTagPolicy",
      tags: ["Tag policies"],
      summary: "Create a tag's policy, or replace it",
      description: "A tag that already has a policy keeps its `id` and `createdAt`; every other field is replaced (never merged). Bodies up to 1 MiB.",
      security: SECURITY.apiKeyOrSession,
      requestBody: { required: true, content: { "application/json": { schema: ref("TagPolicyCreate") } } },
      responses: {
        "200": jsonAnswer("The policy as stored.", one),
        "400": bad,
        "401": unauthorized,
        "403": response("Forbidden"),
        "413": response("PayloadTooLarge"),
        "415": response("UnsupportedMediaType"),
        ...storeAnswers(),
      },
    },
  },
  "/tag-policies/{id}": {
    parameters: [idParameter],
    put: {
      operationId: "changeTagPolicy",
      tags: ["Tag policies"],
      summary: "Change some fields of a policy",
      description: "Only the fields sent change; retry rules are checked against the policy as it would be after the change. Bodies up to 1 MiB.",
      security: SECURITY.apiKeyOrSession,
      requestBody: { required: true, content: { "application/json": { schema: ref("TagPolicyUpdate") } } },
      responses: {
        "200": jsonAnswer("The whole policy after the change.", one),
        "400": bad,
        "401": unauthorized,
        "403": response("Forbidden"),
        "404": notFound,
        "413": response("PayloadTooLarge"),
        "415": response("UnsupportedMediaType"),
        ...storeAnswers(),
      },
    },
    delete: {
      operationId: "deleteTagPolicy",
      tags: ["Tag policies"],
      summary: "Delete a policy",
      description: "Triggers keep the tag and lose the policy's limits, timeout and retries from their next attempt.",
      security: SECURITY.apiKeyOrSession,
      responses: {
        "200": jsonAnswer("Deleted.", {
          type: "object",
          required: ["ok"],
          additionalProperties: false,
          properties: { ok: { const: true } },
        }),
        "401": unauthorized,
        "403": response("Forbidden"),
        "404": notFound,
        ...storeAnswers(),
      },
    },
  },
};
