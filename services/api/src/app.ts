// The api's express application: public endpoints, health and metrics.
import express from "express";
import { randomUUID } from "node:crypto";
import { dbPing, dbTakesWrites } from "@ttr/db";
import { handleOps, OutageLog, prom, redisPing, registerStoreProbes } from "@ttr/platform";
import { AuthFailureBudget, CREDENTIAL_ROUTES } from "./auth/failure-budget.js";
import type { Deps } from "./deps.js";
import { answerUnavailable, errorHandler, notFoundHandler } from "./http/errors.js";
import { watchStorage } from "./http/storage-watch.js";
import { headOnlyWhereServed, literalBadEscapes, optionsOnlyWhereServed, ROUTING } from "./http/paths.js";
import { bulkRoute } from "./routes/bulk.js";
import { cancelRoute } from "./routes/cancel.js";
import { dashboardRoutes } from "./routes/dashboard.js";
import { deadLetterRoutes } from "./routes/dead-letters.js";
import { dashboardUiRoutes } from "./routes/dashboard-ui.js";
import { declareRoute } from "./routes/declare.js";
import { openApiRoutes } from "./routes/openapi.js";
import { scheduleRoute } from "./routes/schedule.js";
import { sessionRoutes } from "./routes/session.js";
import { tagPoliciesRoutes } from "./routes/tag-policies.js";
import { triggerEditRoutes } from "./routes/trigger-edits.js";
import { Scheduling } from "./schedule/call.js";

export function createApp(deps: Deps): express.Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.set("case sensitive routing", ROUTING.caseSensitive);
  app.set("strict routing", ROUTING.strict);

  const requests = new prom.Counter({
    name: "ttr_api_requests_total",
    help: "API requests by route and status",
    labelNames: ["route", "status"] as const,
    registers: [deps.registry],
  });
  // requests the server refuses before express sees them count here too (server.ts)
  app.locals.requests = requests;
  const latency = new prom.Histogram({
    name: "ttr_api_request_duration_seconds",
    help: "API request latency by route",
    labelNames: ["route"] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [deps.registry],
  });

  // One JSON log line per request; no headers, so no keys or cookies.
  app.use((req, res, next) => {
    const started = process.hrtime.bigint();
    const requestId = randomUUID();
    res.on("finish", () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      // a router mounted under a path (the dashboard's) names its routes without it
      const route = req.route ? `${req.baseUrl}${req.route.path as string}` : "unmatched";
      requests.inc({ route, status: String(res.statusCode) });
      latency.observe({ route }, seconds);
      deps.log.info("request", { requestId, method: req.method, path: req.path, status: res.statusCode, ms: Math.round(seconds * 1000) });
    });
    next();
  });

  app.use(literalBadEscapes, headOnlyWhereServed, optionsOnlyWhereServed);

  // PostgreSQL is probed on the plain pg pool: one small statement, without
  // Prisma's query path, so a busy machine still answers within the probe's time.
  // A PostgreSQL outage is logged once, whoever sees it first: a request,
  // the storage watch below, or the readiness probe (an api with no
  // requests meanwhile).
  const dbOutage = deps.dbOutage ?? new OutageLog(deps.log, "postgres", { connection: "ttr-api" });
  const ready = { postgres: dbOutage.watched(() => dbTakesWrites(deps.pg)), redis: () => redisPing(deps.redis) };
  registerStoreProbes(deps.registry, ready);
  for (const path of ["/healthz", "/readyz", "/metrics"]) {
    app.get(path, async (req, res) => {
      const out = (await handleOps(req.path, deps.registry, ready))!;
      res.status(out.status).type(out.type).send(out.body);
    });
  }

  // A request kept waiting by a PostgreSQL that no longer answers gets its
  // 503 within 5 s, whichever pool it waits on (http/storage-watch.ts).
  const liveness = deps.liveness ?? deps.pg;
  app.use(
    watchStorage({
      answers: () => dbPing(liveness),
      unavailable(res) {
        dbOutage.failedUntil(new Error("PostgreSQL did not answer the storage watch's probe"), ready.postgres);
        answerUnavailable(res);
      },
    }),
  );

  // Before any body is read or key looked up: an address that keeps failing
  // to authenticate is answered 429 until its minute ends. Only on the
  // operations that take credentials (a route added there must be listed):
  // the OpenAPI document, the reference page, the dashboard's files, unknown
  // paths and methods answer as they always do.
  const authFailures = new AuthFailureBudget(deps.authFailuresPerMinute ?? 600);
  for (const [method, path] of CREDENTIAL_ROUTES) app[method](path, authFailures.gate);

  // /schedule and the dashboard's POST and PUT /triggers share one path (schedule/call.ts).
  const scheduling = new Scheduling(deps);
  app.all("/schedule", scheduleRoute(deps, scheduling));
  app.delete("/cancel", cancelRoute(deps));
  app.post("/declare", declareRoute(deps));
  app.post("/bulk", bulkRoute(deps));
  // Dashboard session API (docs/api/dashboard-api.md)
  app.use(sessionRoutes(deps));
  app.use(dashboardRoutes(deps));
  app.use(triggerEditRoutes(deps, scheduling));
  // Dead letters in bulk (docs/api/dead-letters.md)
  app.use(deadLetterRoutes(deps));

  app.use(tagPoliciesRoutes(deps));
  app.use("/dashboard", dashboardUiRoutes());
  app.use(openApiRoutes());
  app.use(notFoundHandler);
  app.use((err: unknown, req: express.Request, _res: express.Response, next: express.NextFunction) => {
    authFailures.counted(req, err);
    next(err);
  });
  app.use(errorHandler(deps.log, dbOutage, ready.postgres));
  return app;
}
