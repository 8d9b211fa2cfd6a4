// The shapes the byte scan of /declare and /bulk bodies checks (scan.ts):
// the same rules as the compiled JSON Schemas of schema.ts, written for the
// scanner, and each object shape made ready for it once.

/** What a value must be. `values` types every field an object does not name (an item's headers). */
export type Shape =
  | { t: "string" }
  | { t: "boolean" }
  | { t: "any" }
  | { t: "array"; items: Shape }
  | { t: "object"; fields: Record<string, Shape>; required: string[]; values?: Shape }
  | { t: "cancel" };

export const text: Shape = { t: "string" };
const item: Shape = {
  t: "object",
  required: ["url"],
  fields: {
    url: text,
    scheduledAt: text,
    customKey: text,
    method: text,
    headers: { t: "object", fields: {}, required: [], values: text },
    body: { t: "any" },
    title: text,
    tags: { t: "array", items: text },
  },
};

export const DECLARE_SHAPE: Shape = {
  t: "object",
  required: ["tag", "items"],
  fields: { tag: text, items: { t: "array", items: item }, runMissed: { t: "boolean" } },
};

export const BULK_SHAPE: Shape = {
  t: "object",
  required: [],
  fields: { upserts: { t: "array", items: item }, cancels: { t: "array", items: { t: "cancel" } }, runMissed: { t: "boolean" } },
};

export const CANCEL_SHAPE = "a string (an ID or a custom key) or an object with exactly one of id, customKey and tag";
const CANCEL_FIELDS = ["id", "customKey", "tag"];

/**
 * An object shape made ready for scanning: its field names (and the same as
 * bytes, to compare keys without decoding them), each field's shape by the
 * same index, and the required fields as a bit mask.
 */
export interface Names {
  names: string[];
  bytes: Uint8Array[];
  shapes: Shape[];
  required: number;
}
const namesOf = new WeakMap<object, Names>();
function prepared(names: string[], shapes: Shape[], required: string[]): Names {
  let mask = 0;
  for (const name of required) mask |= 1 << names.indexOf(name);
  return { names, bytes: names.map((name) => new Uint8Array(Buffer.from(name, "utf8"))), shapes, required: mask };
}
export function names(shape: Extract<Shape, { t: "object" }>): Names {
  let n = namesOf.get(shape);
  if (n === undefined) {
    const list = Object.keys(shape.fields);
    n = prepared(list, list.map((name) => shape.fields[name]!), shape.required);
    namesOf.set(shape, n);
  }
  return n;
}
export const CANCEL_NAMES: Names = prepared(CANCEL_FIELDS, CANCEL_FIELDS.map(() => text), []);

/** A value's place in a body as reasons name it: `upserts[3].url`; the body itself is `Body`. */
export function pathText(parts: Array<string | number>): string {
  let out = "";
  for (const part of parts) out += typeof part === "number" ? `[${part}]` : out === "" ? part : `.${part}`;
  return out === "" ? "Body" : out;
}

/** "a string", "an object": how reasons name a type. */
export const article = (t: string): string => (t === "object" || t === "array" ? `an ${t}` : `a ${t}`);
