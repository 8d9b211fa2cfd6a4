// The JSON body of the dashboard's POST and PUT /triggers
// (docs/api/dashboard-api.md, creating and editing), read into the same
// ScheduleAsk a /schedule request gives (call.ts), so that everything after
// the body's own format is /schedule's code.
//
// What a /schedule request says by its HTTP method, headers and raw body is
// said here by fields. Its own format checks, each a 400 with a message,
// come first: types, then the method, the headers, and a body the method
// cannot carry.
import { ApiError, badRequest, isForwardedName, methodCarriesBody } from "@ttr/core";
import Joi from "joi";
import { MiB } from "../http/body.js";
import { shapedWithMessage } from "../http/json-endpoint.js";
import type { ScheduleAsk } from "./call.js";

export interface TriggerBody {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string | null;
  scheduledAt: string;
  customKey?: string | null;
  tags?: string[];
  title?: string | null;
  runMissed?: boolean;
}

/** Unknown fields are ignored, as on the other JSON endpoints. */
const SHAPE: Joi.ObjectSchema<TriggerBody> = Joi.object<TriggerBody>({
  url: Joi.string().allow("").required(),
  method: Joi.string().allow(""),
  headers: Joi.object().pattern(/.*/, Joi.string().allow("")),
  body: Joi.string().allow("", null),
  scheduledAt: Joi.string().allow("").required(),
  customKey: Joi.string().allow("", null),
  tags: Joi.array().items(Joi.string().allow("")),
  title: Joi.string().allow("", null),
  runMissed: Joi.boolean(),
})
  .unknown(true)
  .required();

/** RFC 9110 token: what a method and a header name are made of. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** What a header value can carry on the wire: no CR, LF or NUL, nothing above Latin-1. */
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** A body of up to 1 MiB, as /schedule takes; its JSON text may be longer (escapes). */
export const REQUEST_LIMIT = { bytes: 4 * MiB, text: "4 MiB" } as const;
const BODY_LIMIT = MiB;

function checkedHeaders(headers: Record<string, string>): Array<[string, string]> {
  const pairs = Object.entries(headers);
  for (const [name, value] of pairs) {
    if (!TOKEN.test(name)) throw badRequest(`Invalid header name: ${name}`);
    if (!isForwardedName(name)) throw badRequest(`Header ${name} cannot be stored: ttr- and connection-level headers are never sent`);
    if (!FIELD_VALUE.test(value)) throw badRequest(`Invalid value for header ${name}: line breaks and characters beyond Latin-1 cannot be sent`);
  }
  return pairs;
}

/** The body's format checked, as a ScheduleAsk; `triggerId` is PUT's path ID. */
export function askOfJson(json: unknown, triggerId: string | undefined): ScheduleAsk {
  const b = shapedWithMessage(SHAPE, json);
  const method = (b.method === undefined || b.method === "" ? "GET" : b.method).toUpperCase();
  if (!TOKEN.test(method)) throw badRequest(`Invalid method: ${b.method}`);
  const headers = checkedHeaders(b.headers ?? {});
  const text = b.body ?? "";
  if (text !== "" && !methodCarriesBody(method)) throw badRequest(`A ${method} request carries no body: leave the body empty or choose another method`);
  const body = text === "" ? null : Buffer.from(text, "utf8");
  if (body !== null && body.length > BODY_LIMIT) throw new ApiError("PayloadTooLarge", "The trigger's body is larger than 1 MiB");
  return {
    url: b.url,
    method,
    headers,
    body,
    tags: b.tags ?? [],
    title: b.title ?? null,
    customKey: b.customKey ?? undefined,
    scheduledAt: b.scheduledAt,
    triggerId,
    runMissed: b.runMissed === true,
    keepsKey: false,
  };
}
