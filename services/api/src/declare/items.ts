// The value checks of /declare items and /bulk upserts, after the body's
// shape and the credentials (the check order in docs/api/declare-and-bulk.md,
// for both endpoints): duplicate custom keys across the list first, then each
// item in order: a tag repeated in its `tags`, a tag over 500 characters
// (tags are indexed), its scheduledAt (the /schedule date messages), its title
// (at most 200 characters), its custom key (at most 500), then text
// PostgreSQL cannot store (a NUL, an unpaired surrogate) in any of its
// strings, and a body nested too deeply to be written out. The declared tag's
// length and text are checked before the items. Only the first failure is
// reported. Nothing is written before every item has passed.
import {
  ApiError,
  badRequest,
  checkCustomKey,
  checkItemTag,
  checkStorableText,
  checkTitle,
  type DeclaredItem,
  encodeItemBody,
  itemTags,
  parseScheduledAt,
  type ScheduledAt,
} from "@ttr/core";
import type { RawItem } from "./schema.js";

export interface ListWords {
  /** `items` or `upserts` */
  list: string;
  /** `Item` or `Upsert` */
  label: string;
}

export const DECLARE_WORDS: ListWords = { list: "items", label: "Item" };
export const BULK_WORDS: ListWords = { list: "upserts", label: "Upsert" };

/**
 * Accepted `cron(...)` values, across calls: checking one costs about half a
 * millisecond (cron-parser and Intl), and whether a five-field schedule is
 * valid does not depend on the moment, so a declaration re-sent every few
 * minutes parses each schedule once. Bounded; failures are not kept.
 */
const knownCron = new Map<string, ScheduledAt>();
const KNOWN_CRON_MAX = 20_000;

/** The item's own check messages carry `<label> <key>: ` in front; `<key>` is `(no customKey)` for keyless ones. */
function prefixed<T>(words: ListWords, key: string | undefined, check: () => T): T {
  try {
    return check();
  } catch (err) {
    if (err instanceof ApiError && err.tag === "BadRequest") throw badRequest(`${words.label} ${key ?? "(no customKey)"}: ${err.message}`);
    throw err;
  }
}

/**
 * Checks every item and resolves it to what would be stored. `tag` is the
 * declared tag added to every item (null for /bulk, which adds none).
 */
export function checkItems(raw: RawItem[], opts: { now: Date; tag: string | null; words: ListWords }): DeclaredItem[] {
  const { now, words } = opts;
  if (opts.tag !== null) {
    checkItemTag(opts.tag);
    checkStorableText("tag", opts.tag);
  }
  const keys = new Set<string>();
  for (const item of raw) {
    if (item.customKey === undefined) continue;
    if (keys.has(item.customKey)) throw badRequest(`Duplicate customKey in ${words.list}: ${item.customKey}`);
    keys.add(item.customKey);
  }

  // The same value always parses the same within a call (one `now`), so each distinct one is parsed once.
  const dates = new Map<string, ScheduledAt | ApiError>();
  const when = (value: string): ScheduledAt => {
    let parsed = dates.get(value) ?? knownCron.get(value);
    if (parsed === undefined) {
      try {
        parsed = parseScheduledAt(value, now);
        if (parsed.kind === "cron") {
          if (knownCron.size >= KNOWN_CRON_MAX) knownCron.clear();
          knownCron.set(value, parsed);
        }
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        parsed = err;
      }
      dates.set(value, parsed);
    }
    if (parsed instanceof ApiError) throw parsed;
    return parsed;
  };

  return raw.map((item) => {
    const tags = item.tags ?? [];
    prefixed(words, item.customKey, () => {
      const seen = new Set<string>();
      for (const tag of tags) {
        if (seen.has(tag)) throw badRequest(`duplicate tag "${tag}" in tags`);
        seen.add(tag);
      }
      for (const tag of tags) checkItemTag(tag);
    });
    // Item fields: no scheduledAt means now.
    const at = prefixed(words, item.customKey, () => when(item.scheduledAt ?? "now"));
    const title = item.title ?? null;
    if (title !== null) prefixed(words, item.customKey, () => checkTitle(title));
    const key = item.customKey;
    if (key != null) prefixed(words, key, () => checkCustomKey(key));
    const headers = Object.entries(item.headers ?? {});
    const body = prefixed(words, key, () => {
      checkItemText(item, headers);
      return itemBody(item.body);
    });
    return {
      customKey: item.customKey ?? null,
      when: at,
      url: item.url,
      method: (item.method ?? "GET").toUpperCase(),
      headers,
      body,
      title,
      tags: itemTags(tags, opts.tag),
    };
  });
}

/** Every string of an item that is stored as text: PostgreSQL takes no NUL and (in jsonb) no unpaired surrogate. */
function checkItemText(item: RawItem, headers: Array<[string, string]>): void {
  if (item.customKey !== undefined) checkStorableText("customKey", item.customKey);
  checkStorableText("url", item.url);
  if (item.method !== undefined) checkStorableText("method", item.method);
  if (item.title !== undefined) checkStorableText("title", item.title);
  for (const tag of item.tags ?? []) checkStorableText("tags", tag);
  for (const [name, value] of headers) {
    checkStorableText("headers", name);
    checkStorableText("headers", value);
  }
}

/** The body's bytes; JSON nested deeper than JSON.stringify can follow is refused rather than failing the call. */
function itemBody(body: unknown): Buffer | null {
  try {
    return encodeItemBody(body);
  } catch (err) {
    if (err instanceof RangeError) throw badRequest("body is nested too deeply");
    throw err;
  }
}
