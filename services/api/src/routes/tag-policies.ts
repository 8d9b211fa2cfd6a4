// /tag-policies (docs/api/tag-policies.md). Checks run in the order that page
// gives: Content-Type (415, POST and PUT only),
// the body's format (400, empty body), credentials (401; an API key, Bearer
// or a dashboard session, docs/api/README.md), the policy's existence (404, PUT and
// DELETE, on PUT before any body value), then the validation messages.
// Other methods and paths under /tag-policies get the app's 404 with no body.
//
// A failed request writes nothing: POST is one statement, PUT one
// transaction that locks the policy it validates against, DELETE one
// statement.
import type express from "express";
import type { Request, Response } from "express";
import { badRequest, checkPolicy, notFound, policyCreateBody, policyUpdateBody, setExtras } from "@ttr/core";
import { deletePolicy, listPolicies, lockPolicy, type PolicyRow, updatePolicy, upsertPolicy } from "@ttr/db";
import type { Deps } from "../deps.js";
import { MiB } from "../http/body.js";
import { notFoundHandler } from "../http/errors.js";
import { authenticate, checkJsonContentType, readJson, shaped } from "../http/json-endpoint.js";
import { apiRouter } from "../http/paths.js";
import { writeUnlessAnswered } from "../http/storage-watch.js";

/** Policy IDs are UUIDs; anything else cannot name one (and would not cast). */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** docs/api/README.md: a signed-in dashboard session manages the same policies. */
const AUTH = { session: true } as const;

const policyNotFound = () => notFound("Tag policy not found");

/**
 * The policy as the API shows it: every field, absent ones null, times in
 * ISO 8601 with milliseconds (docs/scheduled-at.md). The delivery extras
 * (docs/delivery-extras.md) appear only when set, so a policy without them
 * is shown exactly as before they existed.
 */
function policyJson(p: PolicyRow) {
  return {
    id: p.id,
    projectId: p.projectId,
    tag: p.tag,
    throughput: p.throughput,
    maxConcurrent: p.maxConcurrent,
    requestTimeoutSeconds: p.requestTimeoutSeconds,
    retryStrategy: p.retryStrategy,
    retryInitialDelaySeconds: p.retryInitialDelaySeconds,
    retryMaxDelaySeconds: p.retryMaxDelaySeconds,
    retryMaxAttempts: p.retryMaxAttempts,
    retryJitter: p.retryJitter,
    retryOn: p.retryOn,
    ...setExtras(p),
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
  };
}

/** The JSON body of a POST or PUT: 415, then 413 past 1 MiB, then 400 for anything but JSON. */
async function jsonBody(req: Request): Promise<unknown> {
  checkJsonContentType(req);
  return readJson(req, MiB, "1 MiB");
}

export function tagPoliciesRoutes(deps: Deps): express.Router {
  const router = apiRouter();

  router
    .route("/tag-policies")
    // Rule 1: all of the project's policies; query parameters are ignored.
    .get(async (req: Request, res: Response) => {
      const { projectId } = await authenticate(deps, req, AUTH);
      const policies = await listPolicies(deps.db, projectId);
      res.status(200).json({ tagPolicies: policies.map(policyJson) });
    })
    // Rules 2–3: create, or replace the tag's policy; never a merge.
    .post(async (req: Request, res: Response) => {
      const body = shaped(policyCreateBody, await jsonBody(req));
      const { projectId } = await authenticate(deps, req, AUTH);
      const policy = await writeUnlessAnswered(deps.db, res, (tx) => upsertPolicy(tx, projectId, checkPolicy(body, null)));
      res.status(200).json({ tagPolicy: policyJson(policy) });
    })
    .all(notFoundHandler);

  router
    .route("/tag-policies/:id")
    // Rules 5–9: only sent fields change; retry rules judge the result.
    .put(async (req: Request<{ id: string }>, res: Response) => {
      const body = shaped(policyUpdateBody, await jsonBody(req));
      const { projectId } = await authenticate(deps, req, AUTH);
      const id = req.params.id;
      if (!UUID.test(id)) throw policyNotFound();
      // Prisma's default limits: one row is locked and written
      const policy = await writeUnlessAnswered(deps.db, res, async (tx) => {
        const current = await lockPolicy(tx, projectId, id);
        if (!current) throw policyNotFound();
        const next = checkPolicy(body, current);
        const updated = await updatePolicy(tx, projectId, id, next);
        // Rule 6 leaves the message of a rename onto a taken tag open; this
        // one names the tag as the validation messages name windows.
        if (updated === "tag-taken") throw badRequest(`Tag policy for '${next.tag}' already exists`);
        if (!updated) throw policyNotFound();
        return updated;
      }, {});
      res.status(200).json({ tagPolicy: policyJson(policy) });
    })
    // Rule 9: unknown, foreign or already deleted IDs are all 404.
    .delete(async (req: Request<{ id: string }>, res: Response) => {
      const { projectId } = await authenticate(deps, req, AUTH);
      const id = req.params.id;
      if (!UUID.test(id) || !(await writeUnlessAnswered(deps.db, res, (tx) => deletePolicy(tx, projectId, id)))) throw policyNotFound();
      res.status(200).json({ ok: true });
    })
    .all(notFoundHandler);

  return router;
}
