// What the api serves besides its API: probes, metrics, this document, the
// rendered reference and the dashboard's pages.
import { type Json, jsonAnswer, ref, SECURITY, transportAnswers } from "./common.js";

const tags = ["Service"];
const noBody = transportAnswers();

/** GET, and HEAD with the same headers and no body. */
function getAndHead(operationId: string, get: Json): Json {
  return { get: { operationId, ...get }, head: { operationId: `${operationId}Head`, ...get, summary: `${get.summary as string} (headers only)` } };
}

const page = (description: string): Json => ({
  description,
  content: { "text/html": { schema: { type: "string" } }, "*/*": { schema: {} } },
});
const notBuilt = { description: "The dashboard is not built yet (`npm run setup` builds it).", content: { "text/plain": { schema: { type: "string" } } } };

const dashboard = (operationId: string, summary: string): Json =>
  getAndHead(operationId, {
    tags,
    summary,
    description: "The dashboard's single-page app; its own page addresses under /dashboard all answer with the same page.",
    security: SECURITY.none,
    responses: { "200": page("The page, or one of its static files."), "404": { $ref: "#/components/responses/NoSuchRoute" }, "503": notBuilt, ...noBody },
  });

export const SERVICE_PATHS: Json = {
  "/healthz": getAndHead("health", {
    tags,
    summary: "Liveness",
    description: "The process is up; nothing else is checked.",
    security: SECURITY.none,
    responses: { "200": jsonAnswer("Alive.", ref("Health")), ...noBody },
  }),
  "/readyz": getAndHead("readiness", {
    tags,
    summary: "Readiness",
    description: "PostgreSQL and Redis both answer within 800 ms.",
    security: SECURITY.none,
    responses: {
      "200": jsonAnswer("Ready: `{\"status\":\"ready\"}`.", ref("Readiness")),
      "503": jsonAnswer("Not ready: `{\"status\":\"unavailable\",\"down\":[…]}`.", ref("Readiness")),
      ...noBody,
    },
  }),
  "/metrics": getAndHead("metrics", {
    tags,
    summary: "Prometheus metrics",
    description: "Request counts and latencies by route and status, and the process's own metrics, in Prometheus text format.",
    security: SECURITY.none,
    responses: { "200": { description: "The metrics.", content: { "text/plain": { schema: { type: "string" } } } }, ...noBody },
  }),
  "/openapi.json": {
    get: {
      operationId: "openapi",
      tags,
      summary: "This document",
      description: "The OpenAPI 3.1 description of every endpoint, as served by this version of ttr.",
      security: SECURITY.none,
      responses: { "200": jsonAnswer("The document.", {
          type: "object",
          required: ["openapi", "info", "paths"],
          properties: { openapi: { type: "string", pattern: "^3\\.1\\." }, info: { type: "object" }, paths: { type: "object" } },
        }), ...noBody },
    },
  },
  "/reference": {
    get: {
      operationId: "reference",
      tags,
      summary: "This document, rendered",
      description: "A page that renders /openapi.json for people, with assets served by the api itself (it works offline).",
      security: SECURITY.none,
      responses: { "200": { description: "The page.", content: { "text/html": { schema: { type: "string" } } } }, ...noBody },
    },
  },
  "/reference/{asset}": {
    parameters: [{ name: "asset", in: "path", required: true, description: "A script, style sheet or icon of the page.", schema: { type: "string" } }],
    get: {
      operationId: "referenceAsset",
      tags,
      summary: "An asset of the rendered reference",
      security: SECURITY.none,
      responses: {
        "200": {
          description: "The file.",
          content: {
            "text/javascript": { schema: { type: "string" } },
            "text/css": { schema: { type: "string" } },
            "image/png": { schema: {} },
          },
        },
        "404": { $ref: "#/components/responses/NoSuchRoute" },
        ...noBody,
      },
    },
  },
  "/dashboard": dashboard("dashboard", "The dashboard"),
  "/dashboard/{page}": {
    "x-deeper-paths": true,
    parameters: [{ name: "page", in: "path", required: true, description: "A page address of the app or a static file; may span several segments.", schema: { type: "string" } }],
    ...dashboard("dashboardPage", "A page or file of the dashboard"),
  },
};
