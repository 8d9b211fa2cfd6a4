// What a /declare or /bulk item is, and how it compares with a stored
// trigger (docs/api/declare-and-bulk.md: items, how items are matched). The
// plan built from these comparisons is in declare.ts. No I/O.
//
// Decisions of our own, where the documented behaviour leaves room:
// - headers compare as objects (names case-sensitive, values exact, order
//   ignored), tags as sets, bodies by their bytes (SHA-256 of each side);
//   a trigger created by /schedule compares the same way.
import { createHash } from "node:crypto";
import { type HeaderPairs, headersObject } from "./headers.js";
import { isPastDated, type ScheduledAt } from "./scheduled-at.js";

/** What an item stores (docs/api/declare-and-bulk.md, items). */
export interface ItemRequest {
  url: string;
  /** upper-cased */
  method: string;
  /** the item's header object as pairs, in its order */
  headers: HeaderPairs;
  body: Uint8Array | null;
  title: string | null;
  /** the item's tags plus the declared tag, each once */
  tags: string[];
}

export interface DeclaredItem extends ItemRequest {
  customKey: string | null;
  when: ScheduledAt;
}

interface StoredRequest {
  id: string;
  customKey: string | null;
  url: string;
  method: string;
  headers: HeaderPairs;
  /** SHA-256 hex of the stored body, null without one */
  bodyHash: string | null;
  title: string | null;
  tags: string[] | null;
  createdAt: Date;
}

/** A one-shot trigger or an instance (generatorId set) as loaded for a diff. */
export interface StoredJob extends StoredRequest {
  generatorId: string | null;
  /** the UTC day (`YYYY-MM-DD`) whose partition stores it: changes to it name that day */
  partDay: string;
  status: string;
  scheduledAt: Date;
  /** an attempt was made: a `skipped` one then still has its planned retry (moved into the past by custom key while retrying) */
  attempted: boolean;
}

/** A retry is planned: the trigger is retrying, or was moved into the past by custom key while it was. */
export const retryPlanned = (job: StoredJob): boolean => job.status === "retrying" || (job.status === "skipped" && job.attempted);

export interface StoredGenerator extends StoredRequest {
  cronExpr: string;
  tz: string;
  /** the latest run cancelled on its own: the next instance comes after it while the schedule stays */
  skipThrough: Date | null;
}

const JOB_FIELDS = ["scheduledAt", "url", "method", "headers", "body", "title", "tags"] as const;
const GENERATOR_FIELDS = ["cronExpr", "tz", "url", "method", "headers", "body", "title", "tags"] as const;

/** Characters outside standard base64 are skipped (item rule 4); Node would read `-` and `_` as base64url. */
const NOT_BASE64 = /[^A-Za-z0-9+/=]/g;

/**
 * Item rule 4: no body for omitted or null; `{_tag: "text" | "base64", value}`
 * as UTF-8 text or decoded bytes (Node's decoder skips invalid characters);
 * anything else as compact JSON. An empty result is no body.
 */
export function encodeItemBody(body: unknown): Buffer | null {
  if (body === undefined || body === null) return null;
  let bytes: Buffer;
  const tagged = typeof body === "object" && !Array.isArray(body) ? (body as { _tag?: unknown; value?: unknown }) : null;
  if (tagged && tagged._tag === "text" && typeof tagged.value === "string") bytes = Buffer.from(tagged.value, "utf8");
  else if (tagged && tagged._tag === "base64" && typeof tagged.value === "string") bytes = Buffer.from(tagged.value.replace(NOT_BASE64, ""), "base64");
  else bytes = Buffer.from(JSON.stringify(body), "utf8");
  return bytes.length === 0 ? null : bytes;
}

export function bodyHash(body: Uint8Array | null): string | null {
  return body === null ? null : createHash("sha256").update(body).digest("hex");
}

/** Item rule 3: the item's tags plus the declared one (listed once even if the item names it). */
export function itemTags(tags: readonly string[], declared: string | null): string[] {
  return declared === null || tags.includes(declared) ? [...tags] : [...tags, declared];
}

/** docs/api/declare-and-bulk.md, past times: past-dated one-shots are skipped unless runMissed or now-based. */
export function oneShotStatus(when: Extract<ScheduledAt, { kind: "once" }>, now: Date, runMissed: boolean): "registered" | "skipped" {
  if (when.nowBased || runMissed) return "registered";
  return isPastDated(when, now) ? "skipped" : "registered";
}

const samePairs = (a: HeaderPairs, b: HeaderPairs) => a.length === b.length && a.every(([n, v], i) => b[i]![0] === n && b[i]![1] === v);

function sameHeaders(stored: HeaderPairs, next: HeaderPairs): boolean {
  if (samePairs(stored, next)) return true;
  const a = headersObject(stored);
  const b = headersObject(next);
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && a[k] === b[k]);
}

function sameTags(stored: string[] | null, next: string[]): boolean {
  if (stored !== null && stored.length === next.length && stored.every((t, i) => t === next[i])) return true;
  const a = [...new Set(stored ?? [])].sort();
  const b = [...new Set(next)].sort();
  return a.length === b.length && a.every((t, i) => t === b[i]);
}

/** Changed request fields, in the documented changedFields order. */
function changedRequest(stored: StoredRequest, item: ItemRequest, hash: string | null): Set<string> {
  const changed = new Set<string>();
  if (stored.url !== item.url) changed.add("url");
  if (stored.method !== item.method) changed.add("method");
  if (!sameHeaders(stored.headers, item.headers)) changed.add("headers");
  if (stored.bodyHash !== hash) changed.add("body");
  if (stored.title !== item.title) changed.add("title");
  if (!sameTags(stored.tags, item.tags)) changed.add("tags");
  return changed;
}

/**
 * The fields a one-shot item changes. A now-based time (`now`, or no
 * `scheduledAt`) counts as changed on every call, even when it lands on the
 * stored second again: each call computes it anew (docs/api/declare-and-bulk.md).
 */
export function changedJobFields(stored: StoredJob, item: ItemRequest, when: { at: Date; nowBased: boolean }): string[] {
  const changed = changedRequest(stored, item, bodyHash(item.body));
  if (when.nowBased || stored.scheduledAt.getTime() !== when.at.getTime()) changed.add("scheduledAt");
  return JOB_FIELDS.filter((f) => changed.has(f));
}

export function changedGeneratorFields(stored: StoredGenerator, item: ItemRequest, cronExpr: string, tz: string): string[] {
  const changed = changedRequest(stored, item, bodyHash(item.body));
  if (stored.cronExpr !== cronExpr) changed.add("cronExpr");
  if (stored.tz !== tz) changed.add("tz");
  return GENERATOR_FIELDS.filter((f) => changed.has(f));
}
