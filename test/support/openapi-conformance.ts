// Every answer the tests receive from an api is checked against the api's
// own OpenAPI document (GET /openapi.json, built from
// services/api/src/openapi/): the path and method must be documented, with
// the status; documented required headers must be there; the body must have
// a documented Content-Type and match its schema. http.ts runs the check on
// every answer from a base URL that was handed to watchApi (startApi,
// startSystem and the fault rig do that), and a non-conforming answer fails
// the request, and so the test that sent it. docs/openapi.md describes it.
//
// A request to a path or method the document does not list must get the
// document's `NoSuchRoute` answer (404, no body), or 431 for oversized
// headers, which the server answers before any routing.
import type { IncomingHttpHeaders } from "node:http";
import { openApiDocument } from "@ttr/api/openapi";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";

type Json = Record<string, any>;

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

const watched = new Set<string>();

/** Check the answers from this base URL (an api) from now on. */
export function watchApi(base: string): void {
  watched.add(new URL(base).origin);
}

export function unwatchApi(base: string): void {
  watched.delete(new URL(base).origin);
}

export const isWatched = (url: URL): boolean => watched.has(url.origin);

const METHODS = new Set(["get", "put", "post", "delete", "options", "head", "patch", "trace"]);

interface Route {
  template: string;
  pattern: RegExp;
  item: Json;
}

interface Checker {
  doc: Json;
  routes: Route[];
  ajv: Ajv2020;
  validators: Map<string, ValidateFunction>;
}

let checker: Checker | undefined;

/** `#/components/schemas/X` becomes a reference into the schema the components are added as. */
function rewriteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewriteRefs);
  if (value === null || typeof value !== "object") return value;
  const out: Json = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = k === "$ref" && typeof v === "string" ? v.replace("#/components/schemas/", "ttr-components#/$defs/") : rewriteRefs(v);
  }
  return out;
}

function templatePattern(template: string, deeper: boolean): RegExp {
  const segments = template.split("/").map((s) => (/^\{[^}]+\}$/.test(s) ? "[^/]+" : s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")));
  // x-deeper-paths: the last parameter may span several segments, or none.
  if (deeper) segments[segments.length - 1] = ".*";
  return new RegExp(`^${segments.join("/")}$`);
}

function load(): Checker {
  if (checker) return checker;
  const doc = openApiDocument() as Json;
  const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: false });
  // ajv-formats is CommonJS: its function is the default export, or that export's own default.
  const addFormats = ((addFormatsModule as unknown as Json).default ?? addFormatsModule) as (a: Ajv2020) => void;
  addFormats(ajv);
  ajv.addSchema({ $id: "ttr-components", $defs: rewriteRefs(doc.components.schemas) as Json });
  const routes = Object.entries(doc.paths as Json).map(([template, item]) => ({
    template,
    item: item as Json,
    pattern: templatePattern(template, (item as Json)["x-deeper-paths"] === true),
  }));
  checker = { doc, routes, ajv, validators: new Map() };
  return checker;
}

function resolve(doc: Json, node: Json): Json {
  let out = node;
  while (typeof out?.$ref === "string") {
    const pointer = (out.$ref as string).replace(/^#\//, "").split("/");
    out = pointer.reduce((at: Json, key) => at?.[key.replaceAll("~1", "/").replaceAll("~0", "~")], doc);
    if (out === undefined) throw new Error(`the document has no ${node.$ref}`);
  }
  return out;
}

/** The documented operation for a request, or null when the document has none (the NoSuchRoute answer applies). */
function operationFor(c: Checker, method: string, pathname: string): { route: Route; operation: Json; method: string } | null {
  // Concrete paths before templated ones, as OpenAPI matches them.
  const matches = c.routes.filter((r) => r.pattern.test(pathname)).sort((a, b) => Number(a.template.includes("{")) - Number(b.template.includes("{")));
  const route = matches[0];
  if (!route) return null;
  const m = method.toLowerCase();
  if (METHODS.has(m) && route.item[m]) return { route, operation: route.item[m], method: m };
  const any = route.item["x-any-method"];
  if (typeof any === "string" && !METHODS.has(m)) return { route, operation: route.item[any], method: any };
  return null;
}

function validator(c: Checker, key: string, schema: Json): ValidateFunction {
  let v = c.validators.get(key);
  if (!v) {
    v = c.ajv.compile(rewriteRefs(schema) as Json);
    c.validators.set(key, v);
  }
  return v;
}

function mediaKey(content: Json, media: string): string | undefined {
  if (content[media]) return media;
  const wildcard = `${media.split("/")[0]}/*`;
  if (content[wildcard]) return wildcard;
  return content["*/*"] ? "*/*" : undefined;
}

/** What was answered, by `METHOD template status`: which documented answers the tests saw. */
export const answered = new Set<string>();

/**
 * The ways an answer does not conform to the document, empty when it does.
 * `method` is the request's method; `url` the full request URL.
 */
export function nonConformities(method: string, url: URL, answer: Answer): string[] {
  const c = load();
  const problems: string[] = [];
  const found = operationFor(c, method, url.pathname);
  const label = found ? `${method} ${found.route.template}` : `${method} ${url.pathname} (not in the document)`;
  const responses: Json = found
    ? found.operation.responses
    : { "404": { $ref: "#/components/responses/NoSuchRoute" }, "431": { $ref: "#/components/responses/HeadersTooLarge" } };
  const documented = responses[String(answer.status)] ?? responses[`${String(answer.status)[0]}XX`] ?? responses.default;
  if (!documented) return [`${label}: status ${answer.status} is not documented (documented: ${Object.keys(responses).join(", ")})`];
  const res = resolve(c.doc, documented);

  const checkHeaders = (headers: Json | undefined) => {
    for (const [name, h] of Object.entries(headers ?? {})) {
      const header = resolve(c.doc, h as Json);
      const value = answer.headers[name.toLowerCase()];
      if (value === undefined) {
        if (header.required) problems.push(`required header ${name} is missing`);
        continue;
      }
      if (header.schema && typeof value === "string") {
        const check = validator(c, `header ${name} ${JSON.stringify(header.schema)}`, header.schema);
        if (!check(value)) problems.push(`header ${name}: ${JSON.stringify(value)} ${c.ajv.errorsText(check.errors)}`);
      }
    }
  };
  checkHeaders(res.headers);

  const head = method.toUpperCase() === "HEAD";
  const type = answer.headers["content-type"];
  const content = res.content as Json | undefined;
  if (!content) {
    if (type !== undefined) problems.push(`no body is documented, but Content-Type is ${type}`);
    if (!head && answer.body.length > 0) problems.push(`no body is documented, but ${answer.body.length} bytes came`);
  } else if (type === undefined && answer.body.length === 0) {
    const empty = res["x-empty-body"] as Json | undefined;
    if (empty === undefined) problems.push(`a body (${Object.keys(content).join(", ")}) is documented, but none came`);
    else checkHeaders(empty.headers);
  } else if (type === undefined) {
    problems.push("a body came without a Content-Type");
  } else {
    const media = type.split(";")[0]!.trim().toLowerCase();
    const key = mediaKey(content, media);
    if (!key) problems.push(`Content-Type ${type} is not documented (documented: ${Object.keys(content).join(", ")})`);
    else if (!head) {
      const schema = (content[key].schema ?? {}) as Json;
      const json = media === "application/json" || media.endsWith("+json");
      const binary = !json && !media.startsWith("text/");
      let value: unknown = binary ? undefined : answer.body.toString("utf8");
      if (json) {
        try {
          value = JSON.parse(value as string);
        } catch {
          problems.push(`the ${media} body is not JSON: ${(value as string).slice(0, 200)}`);
          value = undefined;
        }
      }
      if (value !== undefined) {
        const check = validator(c, `${label} ${answer.status} ${key}`, schema);
        if (!check(value)) problems.push(`body: ${c.ajv.errorsText(check.errors)}; got ${JSON.stringify(value).slice(0, 300)}`);
      }
    }
  }
  if (problems.length === 0) answered.add(`${found ? `${found.method.toUpperCase()} ${found.route.template}` : "unrouted"} ${answer.status}`);
  return problems.map((p) => `${label} answered ${answer.status}: ${p}`);
}
