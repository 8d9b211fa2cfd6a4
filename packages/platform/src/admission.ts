// Tag-policy admission state in Redis (docs/api/tag-policies.md): the
// scheduler admits attempts with one atomic script per batch; the executor
// records each attempt's real start and its end; the reaper ends lost ones.
// See admission.lua for the keys.
import { readFileSync } from "node:fs";
import type { Redis } from "ioredis";

const SCRIPT = readFileSync(new URL("../lua/admission.lua", import.meta.url), "utf8");

/** Starts older than the longest possible window (30 days, docs/api/tag-policies.md, throughput) are never needed. */
export const MAX_WINDOW_MS = 30 * 24 * 3600 * 1000;
/**
 * Starts kept per tag: enough for any rate up to this many per window. A
 * tag whose policy allows more keeps as many as its largest rate
 * (admission.lua); a policy created later over a busy unlimited tag counts
 * at most this many of the starts made before it.
 */
export const DEFAULT_LOG_CAP = 1000;

export interface TagLimit {
  /** maxConcurrent, or null */
  max: number | null;
  /** [window ms, rate] pairs */
  windows: Array<[number, number]>;
}

export interface AdmissionCandidate {
  executionId: string;
  projectId: string;
  tags: string[];
}

const key = (prefix: string) => `${prefix}:adm:`;

type WithAdmit = Redis & { ttrAdmit(prefix: string, now: string, cap: string, oldest: string, input: string): Promise<string[]> };

/** The script is sent once per connection and then called by its hash. */
function withScript(redis: Redis): WithAdmit {
  const r = redis as WithAdmit;
  if (typeof r.ttrAdmit !== "function") redis.defineCommand("ttrAdmit", { numberOfKeys: 0, lua: SCRIPT });
  return r;
}

/**
 * Admits candidates (oldest first) whose every tag has room, recording their
 * start on each tag. Returns the admitted execution ids and the
 * `project:tag` pairs that held some back.
 */
export async function admit(
  redis: Redis,
  prefix: string,
  limits: Map<string, TagLimit>,
  candidates: AdmissionCandidate[],
  now: number,
  cap = DEFAULT_LOG_CAP,
): Promise<{ admitted: string[]; blocked: string[] }> {
  const r = withScript(redis);
  const used: Record<string, TagLimit> = {};
  for (const c of candidates) {
    for (const tag of c.tags) {
      const limit = limits.get(`${c.projectId}:${tag}`);
      if (limit) used[`${c.projectId}:${tag}`] = limit;
    }
  }
  const input = JSON.stringify({ limits: used, candidates: candidates.map((c) => [c.executionId, c.projectId, c.tags]) });
  const out = await r.ttrAdmit(key(prefix), String(now), String(cap), String(now - MAX_WINDOW_MS), input);
  const bar = out.indexOf("|");
  return { admitted: out.slice(0, bar), blocked: out.slice(bar + 1) };
}

/** The executor sends the attempt: its start counts from now, and it no longer waits to start. */
export async function markStarted(redis: Redis, prefix: string, projectId: string, tags: string[], executionId: string, at: number): Promise<void> {
  if (tags.length === 0) return;
  const multi = redis.multi();
  for (const tag of tags) {
    const base = `${key(prefix)}${projectId}:${tag}`;
    multi.zadd(`${base}:log`, "XX", at, executionId);
    multi.srem(`${base}:wait`, executionId);
  }
  await multi.exec();
}

/** Frees the attempt's slots on each tag; `unsent`: takes its start back too. */
async function release(redis: Redis, prefix: string, projectId: string, tags: string[], executionId: string, unsent: boolean): Promise<void> {
  if (tags.length === 0) return;
  const multi = redis.multi();
  for (const tag of tags) {
    const base = `${key(prefix)}${projectId}:${tag}`;
    multi.srem(`${base}:run`, executionId);
    multi.srem(`${base}:wait`, executionId);
    if (unsent) multi.zrem(`${base}:log`, executionId);
  }
  await multi.exec();
}

/**
 * Puts back what Redis lost of one tag's state (a FLUSHALL, a restart
 * without persistence), as PostgreSQL knows it: the attempts holding a
 * concurrency slot, and the tag's recent starts (id, ms), which are added
 * only where the log has no entry of its own for them (newer starts
 * recorded meanwhile keep their time).
 */
export async function restoreTag(redis: Redis, prefix: string, projectId: string, tag: string, state: { running: string[]; starts: Array<[string, number]> }): Promise<void> {
  const base = `${key(prefix)}${projectId}:${tag}`;
  const multi = redis.multi();
  if (state.running.length > 0) multi.sadd(`${base}:run`, ...state.running);
  if (state.starts.length > 0) multi.zadd(`${base}:log`, "NX", ...state.starts.flatMap(([id, at]) => [at, id]));
  await multi.exec();
}

/**
 * Admitted, then never sent (its trigger was cancelled meanwhile): its slots
 * are free, and its start is taken back, since throughput counts only
 * attempts that started (docs/api/tag-policies.md).
 */
export function markDropped(redis: Redis, prefix: string, projectId: string, tags: string[], executionId: string): Promise<void> {
  return release(redis, prefix, projectId, tags, executionId, true);
}

/** The attempt ended (response, network error, timeout, or closed as Executor died): its slots are free. */
export function markEnded(redis: Redis, prefix: string, projectId: string, tags: string[], executionId: string): Promise<void> {
  return release(redis, prefix, projectId, tags, executionId, false);
}
