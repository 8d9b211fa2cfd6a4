// Sign-in throttling, shared by every api replica through Redis. Three
// budgets, each counted when an attempt starts (so concurrent guesses cannot
// slip past) and checked in one script (so replicas cannot race):
//
// - per email and client address: 10 attempts without a success per 15
//   minutes, then refused until those 15 minutes end;
// - per email, from any address: after 10 failures, each further attempt
//   must wait 1 s, 2 s, 4 s … (at most 15 minutes) after the previous
//   failure. Guessing from many addresses gets nowhere, and the owner is
//   slowed, not locked out;
// - per client address, across emails: 100 attempts per 15 minutes,
//   against one password tried on many accounts.
//
// A success clears its email's counts (and gives its address its attempt
// back). Emails are kept as hashes. With Redis down, not answering (a
// frozen server keeps the connection open, and ioredis commands have no
// time limit of their own) or refusing writes (full, read-only), sign-in
// answers 503 rather than go unthrottled.
import { createHash } from "node:crypto";
import type { Redis } from "ioredis";
import { unavailable } from "@ttr/core";
import { isRedisUnavailable, orAfter } from "@ttr/platform";

export interface ThrottleLimits {
  windowMs: number;
  pairMax: number;
  accountFree: number;
  addressMax: number;
  maxBackoffMs: number;
}

export const LOGIN_LIMITS: ThrottleLimits = { windowMs: 15 * 60_000, pairMax: 10, accountFree: 10, addressMax: 100, maxBackoffMs: 15 * 60_000 };

/** How long a throttle script may take before sign-in answers 503: Redis answers it in a millisecond. */
export const REDIS_ANSWER_MS = 2000;

/**
 * `reply`, or 503 Unavailable when it has not come within REDIS_ANSWER_MS
 * or Redis refused the work (full, read-only, loading: isRedisUnavailable).
 */
async function answered<T>(reply: Promise<T>): Promise<T> {
  try {
    return await orAfter(reply, REDIS_ANSWER_MS, () => {
      throw unavailable();
    });
  } catch (err) {
    throw isRedisUnavailable(err) ? unavailable() : err;
  }
}

/** Waits up to `ms` for a client that is (re)connecting; false if it is not ready by then. */
async function ready(redis: Redis, ms: number): Promise<boolean> {
  if (redis.status === "ready") return true;
  if (redis.status === "end" || redis.status === "close") return false;
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      clearTimeout(timer);
      redis.off("ready", onReady);
      resolve(ok);
    };
    const onReady = () => done(true);
    const timer = setTimeout(() => done(false), ms);
    redis.once("ready", onReady);
  });
}

// KEYS: pair, account, address.
// ARGV: now (ms), window (ms), pair max, account free, address max, max backoff (ms).
// Returns 0 when the attempt may go ahead (and counts it), else the ms to wait.
const ATTEMPT = `
local now, window = tonumber(ARGV[1]), tonumber(ARGV[2])
local pairMax, free, addressMax, maxBackoff = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local function left(key)
  local ttl = redis.call('PTTL', key)
  if ttl < 1 then return 1000 end
  return ttl
end
if tonumber(redis.call('GET', KEYS[1]) or '0') >= pairMax then return left(KEYS[1]) end
if tonumber(redis.call('GET', KEYS[3]) or '0') >= addressMax then return left(KEYS[3]) end
local account = redis.call('HMGET', KEYS[2], 'count', 'last')
local count, last = tonumber(account[1] or '0'), tonumber(account[2] or '0')
if count >= free then
  local wait = math.min(2 ^ (count - free) * 1000, maxBackoff)
  if now - last < wait then return wait - (now - last) end
end
local function bump(key)
  if redis.call('INCR', key) == 1 then redis.call('PEXPIRE', key, window) end
end
bump(KEYS[1])
bump(KEYS[3])
redis.call('HSET', KEYS[2], 'count', count + 1, 'last', now)
redis.call('PEXPIRE', KEYS[2], window)
return 0
`;

// KEYS: pair, account, address.
const SUCCEEDED = `
redis.call('DEL', KEYS[1], KEYS[2])
if tonumber(redis.call('GET', KEYS[3]) or '0') > 0 then redis.call('DECR', KEYS[3]) end
return 0
`;

export class LoginThrottle {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly limits: ThrottleLimits = LOGIN_LIMITS,
    private readonly now: () => number = Date.now,
  ) {}

  private keys(email: string, address: string): [string, string, string] {
    const account = createHash("sha256").update(email).digest("base64url");
    const base = `${this.prefix}:login`;
    return [`${base}:pair:${account}:${address}`, `${base}:account:${account}`, `${base}:address:${address}`];
  }

  /** Counts an attempt; returns the seconds to wait when one of its budgets is spent, else 0. */
  async attempt(email: string, address: string): Promise<number> {
    // Redis down: refuse rather than let guesses through unthrottled.
    if (!(await ready(this.redis, 1000))) throw unavailable();
    const { windowMs, pairMax, accountFree, addressMax, maxBackoffMs } = this.limits;
    const args = [this.now(), windowMs, pairMax, accountFree, addressMax, maxBackoffMs];
    const waitMs = Number(await answered(this.redis.eval(ATTEMPT, 3, ...this.keys(email, address), ...args)));
    return waitMs > 0 ? Math.max(1, Math.ceil(waitMs / 1000)) : 0;
  }

  async succeeded(email: string, address: string): Promise<void> {
    await answered(this.redis.eval(SUCCEEDED, 3, ...this.keys(email, address)));
  }
}
