// The OpenAPI 3.1 document of the api, served at GET /openapi.json and
// rendered at GET /reference (docs/openapi.md). The tests validate it as
// OpenAPI 3.1 and check every answer they receive from the api against it.
import { HEADERS, type Json, RESPONSES, response, SECURITY_SCHEMES } from "./common.js";
import { DEAD_LETTER_PATHS, DEAD_LETTER_SCHEMAS } from "./paths-dead-letters.js";
import { POLICY_PATHS } from "./paths-policies.js";
import { PUBLIC_PATHS } from "./paths-public.js";
import { SERVICE_PATHS } from "./paths-service.js";
import { SESSION_PATHS } from "./paths-session.js";
import { PUBLIC_SCHEMAS } from "./schemas-public.js";
import { SESSION_SCHEMAS } from "./schemas-session.js";

export type { Json } from "./common.js";

const DESCRIPTION = `ttr stores an HTTP request and sends it to its target later: once, at a chosen time, or on a cron schedule.

**Scheduling.** \`/schedule\` creates or edits one trigger from the request it receives (any method; \`ttr-\` headers say where and when, every other header and the body are sent on).
\`/declare\` makes the pending triggers of one tag match a list, \`/bulk\` upserts and cancels many at once, \`/cancel\` cancels one.
\`/tag-policies\` sets throughput and concurrency limits, timeouts and retries per tag.

**Credentials.** A project's API key in the \`ttr-api-key\` header. \`/declare\`, \`/bulk\`, \`/tag-policies\` and the dashboard's data endpoints also take it as \`Authorization: Bearer <key>\`;
\`/declare\`, \`/tag-policies\` and the dashboard's data endpoints also take a dashboard session (\`POST /auth/login\`).

**Errors.** Most errors are JSON \`{"_tag", "message"}\`; \`_tag\` always matches the status and \`message\` is for people.
Some answers have no body at all: a malformed request (400; an HTTP/1.1 request without a Host header, or any with two, is one), a path that does not exist or a method an endpoint does not take (404), headers not all in within 20 seconds (408), an \`Expect\` other than \`100-continue\` (417), headers over 16 KiB (431), a \`Transfer-Encoding\` other than \`chunked\` alone (501);
such answers carry a one-line reason in the \`ttr-error\` header. Parse a body as JSON only when the Content-Type says \`application/json\`.
When PostgreSQL or Redis is down, an endpoint that needs it answers 503 \`Unavailable\` with \`Retry-After\`, having changed nothing.

**Results** of the attempts are not pushed anywhere by default: they are read in the dashboard, or with the dashboard's data endpoints.`;

/**
 * Every operation that takes credentials may answer 429 when its client
 * address has failed to authenticate too often (auth/failure-budget.ts).
 */
function withFailureBudget(paths: Json): Json {
  for (const item of Object.values(paths) as Json[]) {
    for (const op of Object.values(item) as Json[]) {
      if (op === null || typeof op !== "object" || !Array.isArray(op.security) || op.security.length === 0) continue;
      (op.responses as Json)["429"] ??= response("TooManyFailedAuthentications");
    }
  }
  return paths;
}

export function openApiDocument(): Json {
  return {
    openapi: "3.1.0",
    info: {
      title: "ttr",
      version: "0.1.0",
      summary: "Store an HTTP request and send it later: once, or on a cron schedule.",
      description: DESCRIPTION,
    },
    servers: [{ url: "/", description: "The api that serves this document." }],
    tags: [
      { name: "Scheduling", description: "Create, edit and cancel triggers." },
      { name: "Tag policies", description: "Limits, timeouts and retries per tag." },
      { name: "Dashboard sessions", description: "Sign in and out of the dashboard." },
      { name: "Dashboard data", description: "Triggers, attempts, usage and outcomes, as the dashboard reads them, and its creating, editing and cancelling of triggers; with a session or an API key." },
      { name: "Service", description: "Probes, metrics, this document and the dashboard's pages." },
    ],
    paths: withFailureBudget({ ...PUBLIC_PATHS, ...POLICY_PATHS, ...SESSION_PATHS, ...DEAD_LETTER_PATHS, ...SERVICE_PATHS }),
    components: {
      schemas: { ...PUBLIC_SCHEMAS, ...SESSION_SCHEMAS, ...DEAD_LETTER_SCHEMAS },
      responses: RESPONSES,
      headers: HEADERS,
      securitySchemes: SECURITY_SCHEMES,
    },
  };
}
