// Dead letters in bulk (docs/api/dead-letters.md): replay or discard many
// at once, chosen by tag and a range of completion times. The api's
// POST /dead-letters/replay and /dead-letters/discard and the CLI's
// `dead-letters replay|discard` both go through here, so they answer alike.
import { badRequest, parseIsoDate } from "@ttr/core";
import { queryOne, type SqlRunner } from "./sql.js";

/** At most this many dead letters are counted, replayed or discarded per call; call again for more. */
export const MAX_DEAD_LETTERS_PER_CALL = 10_000;

export type DeadLetterAction = "replay" | "discard";

/** Which dead letters: any of the three may be left out (null). */
export interface DeadLetterSelection {
  /** only those whose trigger carries this tag */
  tag: string | null;
  /** completed at or after */
  from: Date | null;
  /** completed before */
  to: Date | null;
}

/** The selection as sent (strings, possibly absent); values are checked here. */
export interface RawSelection {
  tag?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
}

function instant(name: "from" | "to", raw: string | undefined): Date | null {
  if (raw === undefined) return null;
  const ms = parseIsoDate(raw);
  if (ms === null) throw badRequest(`Invalid ${name}: ${raw} (an ISO 8601 date-time)`);
  return new Date(ms);
}

/**
 * Checks a selection, in this order: the tag (not empty), `from`, `to`
 * (each an ISO 8601 date-time or date), then that `from` is before `to`.
 * Throws BadRequest with the first failing message.
 */
export function deadLetterSelection(raw: RawSelection): DeadLetterSelection {
  if (raw.tag !== undefined && raw.tag.length === 0) throw badRequest("Invalid tag: empty (leave it out for every tag)");
  const from = instant("from", raw.from);
  const to = instant("to", raw.to);
  if (from !== null && to !== null && !(from.getTime() < to.getTime())) throw badRequest("from must be before to");
  return { tag: raw.tag ?? null, from, to };
}

export interface BulkResult {
  /** how many were (or, on a dry run, would be) replayed or discarded; at most MAX_DEAD_LETTERS_PER_CALL */
  count: number;
  dryRun: boolean;
}

/**
 * Replays or discards the selected dead letters, oldest completion first,
 * at most MAX_DEAD_LETTERS_PER_CALL; with `dryRun` only counts them. Each
 * is one statement.
 */
export async function deadLettersInBulk(
  db: SqlRunner,
  projectId: string,
  action: DeadLetterAction,
  sel: DeadLetterSelection,
  dryRun: boolean,
): Promise<BulkResult> {
  const params = [projectId, sel.tag, sel.from, sel.to, MAX_DEAD_LETTERS_PER_CALL] as const;
  const row = dryRun
    ? await queryOne<{ count: number }>(db, "dead_letters_count", ...params, action === "replay")
    : await queryOne<{ count: number }>(db, action === "replay" ? "dead_letters_replay" : "dead_letters_discard", ...params);
  return { count: row?.count ?? 0, dryRun };
}
