// The shared front of the JSON endpoints /declare, /bulk and /tag-policies,
// in the order docs/api/errors.md gives: Content-Type (415), then the body's format
// (400 with an empty body), then credentials (401), and only then the
// endpoint's own value checks.
import type { Request } from "express";
import type Joi from "joi";
import { ApiError, emptyBadRequest, invalidApiKey, unauthorized } from "@ttr/core";
import type { Deps } from "../deps.js";
import { projectForKey } from "../auth/api-key.js";
import { sessionProject } from "../auth/session.js";
import { readBody } from "./body.js";

/** 415 with a plain-text body (docs/api/errors.md). */
export class UnsupportedContentType extends ApiError {
  constructor(readonly contentType: string) {
    super("UnsupportedMediaType", `Unsupported content-type: ${contentType}`);
  }
}

/** A missing Content-Type is read as JSON; parameters and letter case are ignored (docs/api/declare-and-bulk.md, items). */
export function checkJsonContentType(req: Request): void {
  const raw = req.headers["content-type"];
  if (raw === undefined) return;
  const type = raw.split(";")[0]!.trim().toLowerCase();
  if (type !== "application/json") throw new UnsupportedContentType(raw);
}

/** Reads and parses the body; anything but valid JSON is a 400 with an empty body. */
export async function readJson(req: Request, limit: number, limitText: string): Promise<unknown> {
  const bytes = await readBody(req, limit, limitText);
  if (bytes.length === 0) throw emptyBadRequest();
  try {
    return JSON.parse(bytes.toString("utf8"));
  } catch {
    throw emptyBadRequest();
  }
}

/** Validates the body's shape with joi; a mismatch is a 400 with an empty body. */
export function shaped<T>(schema: Joi.Schema<T>, body: unknown): T {
  const { value, error } = schema.validate(body, { abortEarly: true, convert: false });
  if (error) throw emptyBadRequest();
  return value as T;
}

/** The same with a compiled check (declare/schema.ts): for bodies anyone can send at size. */
export function fits<T>(check: (body: unknown) => body is T, body: unknown): T {
  if (!check(body)) throw emptyBadRequest();
  return body;
}

export interface AuthOptions {
  /** whether a dashboard session is accepted (docs/api/README.md) */
  session: boolean;
}

/**
 * The project of a request to a JSON endpoint (docs/api/README.md): `ttr-api-key` first
 * (it alone is checked when a Bearer token is sent too), then
 * `Authorization: Bearer`, then a dashboard session where accepted.
 */
export async function authenticate(deps: Deps, req: Request, opts: AuthOptions): Promise<{ projectId: string }> {
  const key = req.headers["ttr-api-key"];
  if (typeof key === "string" && key !== "") return { projectId: (await projectForKey(deps.db, key)).id };
  const authorization = req.headers.authorization;
  if (authorization !== undefined) {
    const match = /^Bearer[ \t]+(\S.*)$/i.exec(authorization.trim());
    if (match) {
      const project = await projectForKey(deps.db, match[1]!.trim()).catch((err: unknown) => {
        throw err instanceof ApiError ? invalidApiKey() : err;
      });
      return { projectId: project.id };
    }
  }
  if (opts.session) {
    const session = await sessionProject(deps, req);
    if (session) return { projectId: session.projectId };
  }
  throw unauthorized();
}
