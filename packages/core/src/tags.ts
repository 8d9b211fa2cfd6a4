// Tags and titles on `/schedule` (docs/api/schedule.md: its headers, limits
// and check order; titles up to 200 characters).
// Lengths count Unicode code points, so an emoji is one character, as a
// person reading the limit would count it.

import { badRequest } from "./errors.js";

const MAX_TAGS = 10;
const MAX_TAG_LENGTH = 50;
const MAX_TITLE_LENGTH = 200;
const TAG_CHARS = /^[a-z0-9_-]+$/;

/**
 * Tags listed in a `ttr-tags` header: split at commas, trimmed, empty entries
 * dropped (so `a,,b,` is two tags). Order and duplicates are kept; the
 * checks below report tags in listed order.
 */
export function parseTagsHeader(raw: string | undefined): string[] {
  if (raw === undefined) return [];
  return raw
    .split(",")
    .map((tag) => tag.trim())
    .filter((tag) => tag !== "");
}

/** docs/api/schedule.md: count first, then each tag in order, length before characters. */
export function checkScheduleTags(tags: readonly string[]): void {
  if (tags.length > MAX_TAGS) throw badRequest(`Maximum ${MAX_TAGS} tags allowed`);
  for (const tag of tags) {
    if (codePoints(tag) > MAX_TAG_LENGTH) throw badRequest(`Tag too long (max ${MAX_TAG_LENGTH} chars): ${tag}`);
    if (!TAG_CHARS.test(tag)) throw badRequest(`Invalid tag (only a-z 0-9 _ - allowed): ${tag}`);
  }
}

/** A tag a policy can be declared for: 1 to 50 of a-z 0-9 _ - (docs/api/schedule.md). */
export function isPolicyTag(tag: string): boolean {
  return TAG_CHARS.test(tag) && tag.length <= MAX_TAG_LENGTH;
}

/** docs/api/schedule.md: at most 200 characters. */
export function checkTitle(title: string): void {
  if (codePoints(title) > MAX_TITLE_LENGTH) throw badRequest(`Title too long (max ${MAX_TITLE_LENGTH} chars)`);
}

/**
 * Custom keys are indexed, and PostgreSQL cannot index a value of more than
 * about 2,700 bytes; the interface sets no other limit, so this one keeps every key
 * (up to 4 bytes a character) indexable and says so instead of failing.
 */
export const MAX_CUSTOM_KEY_LENGTH = 500;

export function checkCustomKey(key: string): void {
  if (codePoints(key) > MAX_CUSTOM_KEY_LENGTH) throw badRequest(`Custom key too long (max ${MAX_CUSTOM_KEY_LENGTH} chars)`);
}

/**
 * Tags of /declare and /bulk are not format-checked, but they are indexed as
 * custom keys are, so they have the same bound for the same reason.
 */
export const MAX_ITEM_TAG_LENGTH = MAX_CUSTOM_KEY_LENGTH;

export function checkItemTag(tag: string): void {
  if (codePoints(tag) > MAX_ITEM_TAG_LENGTH) throw badRequest(`Tag too long (max ${MAX_ITEM_TAG_LENGTH} chars): ${tag}`);
}

/** A NUL character, or half of a surrogate pair without its other half. */
const UNSTORABLE = /\0|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Whether PostgreSQL can store the text: its text and jsonb types take no
 * NUL character, and jsonb no unpaired surrogate, both of which a JSON
 * string can hold (`"\u0000"`, `"\ud800"`).
 */
export function storableText(text: string): boolean {
  return !UNSTORABLE.test(text);
}

/** A 400 naming the field when `text` cannot be stored (see storableText). */
export function checkStorableText(field: string, text: string): void {
  if (!storableText(text)) throw badRequest(`${field} holds a NUL character or an unpaired surrogate, which cannot be stored`);
}

function codePoints(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}
