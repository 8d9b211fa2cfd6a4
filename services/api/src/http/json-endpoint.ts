// The shared front of the JSON endpoints /declare, /bulk and /tag-policies,
// in the order docs/api/errors.md gives: Content-Type (415), then the body's format
// (400 with an empty body), then credentials (401), and only then the
// endpoint's own value checks.
import type { Request } from "express";
import type { ErrorObject } from "ajv";
import type Joi from "joi";
import { ApiError, badRequest, emptyBadRequest, invalidApiKey, unauthorized } from "@ttr/core";
import { scanBody, type Shape } from "../declare/scan.js";
import { pathText } from "../declare/scan-shapes.js";
import type { Deps } from "../deps.js";
import { projectForKey } from "../auth/api-key.js";
import { sessionProject } from "../auth/session.js";
import { readBody, UnreadableBody } from "./body.js";

/** 415 with a plain-text body (docs/api/errors.md). */
export class UnsupportedContentType extends ApiError {
  constructor(readonly contentType: string) {
    super("UnsupportedMediaType", `Unsupported content-type: ${contentType}`);
  }
}

/**
 * A missing Content-Type, or one sent empty, is read as JSON; parameters and
 * letter case are ignored (docs/api/declare-and-bulk.md, items).
 */
export function checkJsonContentType(req: Request): void {
  const raw = req.headers["content-type"];
  if (raw === undefined || raw.trim() === "") return;
  const type = raw.split(";")[0]!.trim().toLowerCase();
  if (type !== "application/json") throw new UnsupportedContentType(raw);
}

/** readBody, where a body that could not be read to its end is a 400 with an empty body too. */
async function readBodyOrEmpty400(req: Request, limit: number, limitText: string): Promise<Buffer> {
  try {
    return await readBody(req, limit, limitText);
  } catch (err) {
    throw err instanceof UnreadableBody ? emptyBadRequest(err.message) : err;
  }
}

/** Reads and parses the body; anything but valid JSON, or a body cut short, is a 400 with an empty body. */
export async function readJson(req: Request, limit: number, limitText: string): Promise<unknown> {
  const bytes = await readBodyOrEmpty400(req, limit, limitText);
  if (bytes.length === 0) throw emptyBadRequest("Body is empty: a JSON object is required");
  try {
    return JSON.parse(bytes.toString("utf8"));
  } catch (err) {
    throw emptyBadRequest(`Body is not valid JSON: ${(err as Error).message}`);
  }
}

/** readJson for the dashboard's own endpoints: a body that is not JSON is a 400 with `{_tag, message}`. */
export async function readJsonWithMessage(req: Request, limit: number, limitText: string): Promise<unknown> {
  try {
    return await readJson(req, limit, limitText);
  } catch (err) {
    throw err instanceof ApiError && err.emptyBody ? badRequest(err.message) : err;
  }
}

/**
 * Reads a /declare or /bulk body and checks its JSON and shape without
 * building it (declare/scan.ts): anything else is a 400 with an empty body
 * and the reason in ttr-error. Build it with `built` once the key is known.
 */
export async function readScanned(req: Request, limit: number, limitText: string, shape: Shape): Promise<Buffer> {
  const bytes = await readBodyOrEmpty400(req, limit, limitText);
  if (bytes.length === 0) throw emptyBadRequest("Body is empty: a JSON object is required");
  const verdict = scanBody(bytes, shape);
  if (verdict.ok) return bytes;
  throw emptyBadRequest("syntax" in verdict ? `Body is not valid JSON: ${verdict.syntax}` : verdict.shape);
}

/** A scanned body, parsed; the compiled check runs again as a second line (it agrees with the scan). */
export function built<T>(check: CompiledCheck<T>, bytes: Buffer): T {
  return fits(check, JSON.parse(bytes.toString("utf8")));
}

/** Validates the body's shape with joi; a mismatch is a 400 with an empty body. */
export function shaped<T>(schema: Joi.Schema<T>, body: unknown): T {
  const { value, error } = schema.validate(body, { abortEarly: true, convert: false });
  if (error) throw emptyBadRequest(joiReason(error));
  return value as T;
}

/**
 * The same for the dashboard's own endpoints, whose malformed bodies are
 * answered like their other errors: 400 with `{_tag, message}`.
 */
export function shapedWithMessage<T>(schema: Joi.Schema<T>, body: unknown): T {
  const { value, error } = schema.validate(body, { abortEarly: true, convert: false });
  if (error) throw badRequest(joiReason(error));
  return value as T;
}

/** joi labels a value by its path in quotes (`"retryOn[0]" must be …`); the body itself is `"value"`. */
function joiReason(error: Joi.ValidationError): string {
  const message = error.details[0]?.message ?? error.message;
  return message.replace(/^"value"/, "Body").replaceAll('"', "");
}

/** A compiled ajv check (declare/schema.ts), with the errors of its last call. */
export interface CompiledCheck<T> {
  (body: unknown): body is T;
  errors?: ErrorObject[] | null;
}

/** The same with a compiled check (declare/schema.ts): for bodies anyone can send at size. */
export function fits<T>(check: CompiledCheck<T>, body: unknown): T {
  if (!check(body)) throw emptyBadRequest(ajvReason(check.errors ?? []));
  return body;
}

/** `/upserts/3` → `upserts[3]`; the body itself is `Body`. */
function pathOf(instancePath: string, property?: string): string {
  const parts: Array<string | number> = instancePath.split("/").slice(1).map((p) => (/^\d+$/.test(p) ? Number(p) : p));
  if (property !== undefined) parts.push(property);
  return pathText(parts);
}

/**
 * One line from ajv's first error. A value that matches none of several
 * shapes (a /bulk cancel) is described by its schema's `description`.
 */
export function ajvReason(errors: ErrorObject[]): string {
  // ajv reports the branches first and the enclosing choice last
  const choice = errors.findLast((e) => e.keyword === "anyOf" || e.keyword === "oneOf");
  const e = choice ?? errors[0];
  if (e === undefined) return "Body does not have the expected shape";
  if (choice) {
    const described = (e.parentSchema as { description?: string } | undefined)?.description;
    return `${pathOf(e.instancePath)} must be ${described ?? "one of the accepted shapes"}`;
  }
  switch (e.keyword) {
    case "required":
      return `${pathOf(e.instancePath, (e.params as { missingProperty: string }).missingProperty)} is required`;
    case "type":
      return `${pathOf(e.instancePath)} must be ${article((e.params as { type: string }).type)}`;
    default:
      return `${pathOf(e.instancePath)} ${e.message ?? "is not valid"}`;
  }
}

const article = (type: string): string => (type === "object" || type === "array" || type === "integer" ? `an ${type}` : `a ${type}`);

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
  if (typeof key === "string" && key !== "") return { projectId: (await projectForKey(deps.pg, key)).id };
  const authorization = req.headers.authorization;
  if (authorization !== undefined) {
    const match = /^Bearer[ \t]+(\S.*)$/i.exec(authorization.trim());
    if (match) {
      const project = await projectForKey(deps.pg, match[1]!.trim()).catch((err: unknown) => {
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
