// One /schedule call from its checks to its answer (docs/api/schedule.md),
// whatever carried it: the `ttr-` headers of /schedule, or the JSON body of
// the dashboard's POST and PUT /triggers (routes/trigger-edits.ts). Both
// routes read their own request into a ScheduleAsk and hand it here, so the
// checks run in the same order, give the same messages, use quota the same
// way and apply the same rules.
//
// The caller's credentials are checked at their place in that order (after
// the URL, tags, title and key, before the date): `project` does it.
import { badRequest, checkCustomKey, checkScheduleTags, checkTitle, type HeaderPairs, parseScheduledAt, quotaExceeded } from "@ttr/core";
import { isDatabaseUnavailable, mayHaveCommitted, projectUsage, retryConflicts } from "@ttr/db";
import type { Deps } from "../deps.js";
import { applyPlainOneShot, applySchedule, isPlainOneShot, type ScheduleCall } from "./apply.js";
import { OneShotInserts } from "./inserts.js";
import { QuotaUnits } from "./quota.js";

/** What a call asks for, as its request carried it (nothing checked yet). */
export interface ScheduleAsk {
  url: string;
  /** upper case */
  method: string;
  headers: HeaderPairs;
  /** null when the method carries none or it is empty */
  body: Uint8Array | null;
  tags: string[];
  title: string | null;
  /** as sent; empty means none */
  customKey: string | undefined;
  /** the scheduled-at value as sent */
  scheduledAt: string | undefined;
  /** the ID to edit; empty means none */
  triggerId: string | undefined;
  runMissed: boolean;
  /**
   * An edit that names no key keeps the trigger's: /schedule's headers say
   * only what they change. The JSON of POST and PUT /triggers is the whole
   * trigger, so there no key means none (docs/api/dashboard-api.md).
   */
  keepsKey: boolean;
}

/** The 200 answer of /schedule (and of POST and PUT /triggers). */
export interface ScheduleAnswer {
  triggerId: string;
  scheduledAt: string;
  operation: "schedule" | "reschedule";
  kind: "job" | "generator";
  monthQuotaRemaining: number;
}

/** The caller's project; `monthlyQuota` when the credentials check already read it. */
export type ProjectOf = () => Promise<{ id: string; monthlyQuota?: number }>;

function isAbsoluteUrl(value: string): boolean {
  if (value.trim() === "") return false;
  try {
    new URL(value);
    return true;
  } catch {
    return false;
  }
}

/** `YYYY-MM` of the request moment, the quota's calendar month in UTC (docs/quota.md). */
const monthOf = (d: Date) => d.toISOString().slice(0, 7);

const orNull = (value: string | undefined): string | null => (value === undefined || value === "" ? null : value);

export class Scheduling {
  private readonly quota: QuotaUnits;
  private readonly inserts: OneShotInserts;

  constructor(private readonly deps: Pick<Deps, "db" | "pg" | "log">) {
    this.quota = new QuotaUnits(deps.pg);
    this.inserts = new OneShotInserts(deps.pg, deps.log);
  }

  /** Runs the checks from the URL on, in order, then creates or edits the trigger. `now` is the request moment. */
  async schedule(ask: ScheduleAsk, projectOf: ProjectOf, now: Date): Promise<ScheduleAnswer> {
    if (!isAbsoluteUrl(ask.url)) throw badRequest(`Invalid URL: ${ask.url}`);
    checkScheduleTags(ask.tags);
    if (ask.title !== null) checkTitle(ask.title);
    if (ask.customKey !== undefined) checkCustomKey(ask.customKey);

    const project = await projectOf();
    const when = parseScheduledAt(ask.scheduledAt, now);

    const month = monthOf(now);
    const remaining = await this.quota.take(project.id, month);
    if (remaining === null) throw quotaExceeded(project.monthlyQuota ?? (await this.monthlyQuota(project.id, month)));

    const call: ScheduleCall = {
      projectId: project.id,
      now,
      when,
      customKey: orNull(ask.customKey),
      triggerId: orNull(ask.triggerId),
      runMissed: ask.runMissed,
      keepsKey: ask.keepsKey,
      request: { title: ask.title, url: ask.url, method: ask.method, headers: ask.headers, body: ask.body, tags: ask.tags, source: "schedule" },
    };
    // A 503 costs the caller no unit when nothing is stored: given back at
    // once when storage failed before the write was sent, or, for a plain
    // one-shot whose write may have committed, once its row is known not
    // to be stored (removed before it was sent, or never committed).
    const giveBack = () => this.giveBack(project.id, month);
    const result = await this.write(call, giveBack).catch(async (err: unknown) => {
      if (isDatabaseUnavailable(err) && !mayHaveCommitted(err)) await giveBack();
      throw err;
    });
    return {
      triggerId: result.triggerId,
      scheduledAt: result.scheduledAt.toISOString(),
      operation: result.operation,
      kind: result.kind,
      monthQuotaRemaining: remaining,
    };
  }

  private write(call: ScheduleCall, forgotten: () => Promise<void>) {
    if (isPlainOneShot(call)) return applyPlainOneShot(this.inserts, call, forgotten);
    // Edits and recurring triggers: one transaction on the request pool,
    // less than half the api CPU per call of Prisma's interactive
    // transaction (test/bench/HISTORY.md, 123 and 124), and bounded in time
    // as that pool's other statements are.
    return retryConflicts(() => this.deps.pg.$transaction((tx) => applySchedule(tx, call)));
  }

  /** Best effort: with PostgreSQL away this fails too, and the unit stays used. */
  private async giveBack(projectId: string, month: string): Promise<void> {
    await this.quota.giveBack(projectId, month).catch((err: unknown) => {
      this.deps.log.warn("quota unit of a failed /schedule call not given back", { projectId, month, error: String(err) });
    });
  }

  /** Only for the 402's message, when the credentials did not bring it (a session). */
  private async monthlyQuota(projectId: string, month: string): Promise<number> {
    return (await projectUsage(this.deps.db, projectId, month))?.monthlyQuota ?? 0;
  }
}
