// Admission under tag policies (docs/api/tag-policies.md: several
// tags, when a limit is reached). The active scheduler is the only admitter;
// the decision and the record of each start are one atomic Redis script, so
// limits hold across any number of executors.
import type { Redis } from "ioredis";
import { isWindowKey, parseWindow } from "@ttr/core";
import { type DispatchCandidate, inFlightForTag, limitingPolicies, type SqlRunner, tagRecentStarts } from "@ttr/db";
import { admit, DEFAULT_LOG_CAP, MAX_WINDOW_MS, restoreTag, type TagLimit } from "@ttr/platform";
import type { Admission } from "./deps.js";

/**
 * A policy's limits as the admission script reads them. A paused tag gets
 * one more window with a rate of 0, which admits nothing, exactly as a
 * stored rate of 0 does (docs/api/tag-policies.md, pausing a tag); the
 * stored throughput map is left as it is, so resuming brings it back.
 */
export function limitOf(throughput: Record<string, number> | null, maxConcurrent: number | null, paused = false): TagLimit {
  const windows: Array<[number, number]> = [];
  if (paused) windows.push([1000, 0]);
  for (const [key, rate] of Object.entries(throughput ?? {})) {
    // Window keys are validated when a policy is stored; skip anything else.
    if (isWindowKey(key)) windows.push([parseWindow(key) * 1000, Number(rate)]);
  }
  return { max: maxConcurrent, windows };
}

/** The most starts read back per tag after Redis lost its data (a rate above it is not held to exactly then). */
const MAX_RESTORED_STARTS = 100_000;

export class PolicyAdmission implements Admission {
  private limits = new Map<string, TagLimit>();
  private loadedAt = 0;

  constructor(
    private readonly db: SqlRunner,
    private readonly redis: Redis,
    private readonly prefix: string,
    /** how long loaded policies are trusted; docs/api/tag-policies.md wants changes seen at the next check */
    private readonly refreshMs = 500,
  ) {}

  private async current(): Promise<Map<string, TagLimit>> {
    if (Date.now() - this.loadedAt >= this.refreshMs) {
      const next = new Map<string, TagLimit>();
      for (const p of await limitingPolicies(this.db)) next.set(`${p.projectId}:${p.tag}`, limitOf(p.throughput, p.maxConcurrent, p.paused));
      this.limits = next;
      this.loadedAt = Date.now();
    }
    return this.limits;
  }

  async admit(candidates: DispatchCandidate[], now: Date): Promise<{ admitted: DispatchCandidate[]; blocked: string[] }> {
    const tagged = candidates.filter((c) => c.tags.length > 0);
    if (tagged.length === 0) return { admitted: candidates, blocked: [] };
    const { admitted, blocked } = await admit(this.redis, this.prefix, await this.current(), tagged, now.getTime());
    const ok = new Set(admitted);
    return { admitted: candidates.filter((c) => c.tags.length === 0 || ok.has(c.executionId)), blocked };
  }

  /**
   * Redis lost its data (docs/api/tag-policies.md, when Redis loses its
   * data): before anything is admitted again, every limited tag gets back
   * from PostgreSQL the attempts holding its slots and its starts within
   * its longest window, so a flush lets through no more than the limits
   * allow. Left out: a retry planned before that window and sent within it.
   */
  async restore(now: Date): Promise<void> {
    for (const [pt, limit] of await this.current()) {
      const [projectId, tag] = [pt.slice(0, 36), pt.slice(37)];
      const running = limit.max === null ? [] : await inFlightForTag(this.db, projectId, tag);
      // a rate below 1 spaces starts window / rate apart: that far back matters
      const span = Math.min(MAX_WINDOW_MS, Math.max(0, ...limit.windows.filter(([, rate]) => rate > 0).map(([ms, rate]) => (rate < 1 ? ms / rate : ms))));
      const keep = Math.min(MAX_RESTORED_STARTS, Math.max(DEFAULT_LOG_CAP, ...limit.windows.map(([, rate]) => Math.floor(rate))));
      const starts = span === 0 ? [] : await tagRecentStarts(this.db, projectId, tag, new Date(now.getTime() - span), keep);
      await restoreTag(this.redis, this.prefix, projectId, tag, { running, starts: starts.map((s) => [s.id, s.startedAt.getTime()]) });
    }
  }

  /**
   * Makes the in-flight sets of limited tags agree with PostgreSQL, the
   * source of truth: slots of attempts that ended without telling Redis are
   * freed, and a Redis that lost its data learns what is in flight.
   */
  async reconcile(): Promise<void> {
    for (const [pt, limit] of await this.current()) {
      if (limit.max === null) continue;
      const [projectId, tag] = [pt.slice(0, 36), pt.slice(37)];
      const inFlight = new Set(await inFlightForTag(this.db, projectId, tag));
      const key = `${this.prefix}:adm:${pt}:run`;
      const members = await this.redis.smembers(key);
      const stale = members.filter((m) => !inFlight.has(m));
      const missing = [...inFlight].filter((m) => !members.includes(m));
      if (stale.length) await this.redis.srem(key, ...stale);
      if (missing.length) await this.redis.sadd(key, ...missing);
    }
  }
}
