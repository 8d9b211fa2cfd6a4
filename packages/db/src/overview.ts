// The dashboard's overview of a project (GET /overview,
// docs/api/dashboard-api.md): how late its first attempts started, minute
// by minute; what waits in the queue and what runs; the backlog its tag
// policies hold, per tag; and what is due in the next hour. Five named
// statements, each served by an index keyed by project, so the overview
// costs what the project's recent and pending rows cost, never its history.
//
// Counts of backlogs stop at OVERVIEW_COUNT_LIMIT: a count equal to it means
// at least that many. That keeps the page cheap, and answering, when a
// paused tag or a stopped executor has piled up millions of attempts, which
// is when it is looked at most.
import { query, queryOne, type SqlRunner } from "./sql.js";

/** Backlog counts stop here. */
export const OVERVIEW_COUNT_LIMIT = 10_000;
/** Upcoming runs are counted in slots of this many minutes… */
export const UPCOMING_SLOT_MINUTES = 5;
/** …this many of them: the next hour. */
export const UPCOMING_SLOTS = 12;
/** How many of the next due triggers are listed. */
export const NEXT_DUE = 10;
/** Held backlogs of at most this many tags are listed, the largest first… */
export const HELD_TAGS = 50;
/** …out of at most this many tags counted (session_overview_held.sql). */
export const HELD_TAGS_COUNTED = 1000;

interface LatenessRow {
  minute: Date;
  started: number;
  p50Ms: number | null;
  p99Ms: number | null;
  maxMs: number | null;
}

interface QueueRow {
  inQueue: number;
  oldestInQueue: Date | null;
  running: number;
}

interface HeldRow {
  tag: string;
  held: number;
  oldestPlannedAt: Date;
}

interface SlotRow {
  from: Date;
  due: number;
}

interface DueRow {
  id: string;
  customKey: string | null;
  title: string | null;
  url: string;
  method: string;
  tags: string[];
  scheduledAt: Date;
  generatorId: string | null;
}

const iso = (d: Date | null): string | null => (d === null ? null : d.toISOString());
const wholeMinute = (ms: number): number => Math.floor(ms / 60_000) * 60_000;

/**
 * The overview at `now`. Lateness covers the `minutes` whole minutes that
 * end with the one containing `now` (the window of GET /stats); upcoming
 * runs start with that minute.
 */
export async function projectOverview(db: SqlRunner, projectId: string, now: Date, minutes: number) {
  const thisMinute = wholeMinute(now.getTime());
  const first = new Date(thisMinute - (minutes - 1) * 60_000);
  const from = new Date(thisMinute);
  // One after the other: the read pool is small and shared by every dashboard tab.
  const lateness = await query<LatenessRow>(db, "session_overview_lateness", projectId, first, minutes);
  const queue = (await queryOne<QueueRow>(db, "session_overview_queue", projectId, OVERVIEW_COUNT_LIMIT))!;
  const held = await query<HeldRow>(db, "session_overview_held", projectId, now, OVERVIEW_COUNT_LIMIT, HELD_TAGS, HELD_TAGS_COUNTED);
  const slots = await query<SlotRow>(db, "session_overview_upcoming", projectId, from, UPCOMING_SLOT_MINUTES, UPCOMING_SLOTS, OVERVIEW_COUNT_LIMIT);
  const next = await query<DueRow>(db, "session_overview_next", projectId, from, NEXT_DUE);
  return {
    countLimit: OVERVIEW_COUNT_LIMIT,
    lateness: lateness.map((b) => ({ ...b, minute: b.minute.toISOString() })),
    queue: { waiting: queue.inQueue, oldestPlannedAt: iso(queue.oldestInQueue), running: queue.running },
    held: held.map((h) => ({ tag: h.tag, held: h.held, oldestPlannedAt: h.oldestPlannedAt.toISOString() })),
    upcoming: {
      slotMinutes: UPCOMING_SLOT_MINUTES,
      slots: slots.map((s) => ({ from: s.from.toISOString(), due: s.due })),
      next: next.map((t) => ({ ...t, scheduledAt: t.scheduledAt.toISOString() })),
    },
  };
}

export type ProjectOverview = Awaited<ReturnType<typeof projectOverview>>;
