// The JSON shapes of POST /declare and POST /bulk (SPEC §4, SPEC §7
// "/declare checks" row 2 and "/bulk differences"). Whatever does not fit
// these schemas is answered 400 with no body by `shaped`. Nulls are refused
// everywhere except an item's body (item rule 1); extra fields pass (item
// rule 2). Empty strings are allowed: neither the tag nor the URL has a
// format to meet at this point.
import Joi from "joi";

const text = Joi.string().allow("");

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

const item = Joi.object<RawItem>({
  url: text.required(),
  scheduledAt: text,
  customKey: text,
  method: text,
  headers: Joi.object().pattern(text, text),
  body: Joi.any(),
  title: text,
  tags: Joi.array().items(text),
}).unknown(true);

export interface DeclareBody {
  tag: string;
  items: RawItem[];
  runMissed?: boolean;
}

export const declareBody = Joi.object<DeclareBody>({
  tag: text.required(),
  items: Joi.array().items(item).required(),
  runMissed: Joi.boolean(),
}).unknown(true);

/** A `cancels` entry: a string (an ID if one exists, else a custom key; CONTRACT §6) or exactly one of id, customKey, tag. */
export type RawCancel = string | { id: string } | { customKey: string } | { tag: string };

export interface BulkBody {
  upserts?: RawItem[];
  cancels?: RawCancel[];
  runMissed?: boolean;
}

export const bulkBody = Joi.object<BulkBody>({
  upserts: Joi.array().items(item),
  cancels: Joi.array().items(
    Joi.alternatives(text, Joi.object({ id: text, customKey: text, tag: text }).xor("id", "customKey", "tag").unknown(true)),
  ),
  runMissed: Joi.boolean(),
}).unknown(true);
