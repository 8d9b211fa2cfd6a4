import type { Db, PgRunner } from "@ttr/db";
import type { Logger, prom } from "@ttr/platform";
import type { Redis } from "ioredis";

/** What the api's routes need, built once in main.ts (or by a test). */
export interface Deps {
  db: Db;
  /**
   * a small pool of its own for the dashboard's reads, whose statements the
   * server cancels past DB_READ_TIMEOUT_MS (the request then answers 503), so
   * a slow read never holds the connections writes need
   */
  reads: Db;
  /**
   * the dashboard's trigger and execution pages (one recurring trigger's
   * instances too), with the same statement timeout: prepared, each keeping
   * one generic plan per connection.
   * Planned for their values, as `reads` runs them, those lists spend
   * 70–110 ms planning over a month of day partitions, against about 2 ms
   * running (docs/storage.md, "The dashboard's lists keep one plan")
   */
  lists: PgRunner;
  /** plain pg pool with prepared statements, for the statements of the hottest path (/schedule) */
  pg: PgRunner;
  redis: Redis;
  log: Logger;
  registry: prom.Registry;
  /**
   * TTR_COOKIE_SECURE: whether the session cookie is marked Secure; unset,
   * it is when the request came over HTTPS (as express sees it: TRUST_PROXY)
   */
  cookieSecure?: boolean;
  /** TTR_REDIS_PREFIX: the api's own keys (sign-in throttling) go under it; "ttr" when not given */
  redisPrefix?: string;
  /** TTR_AUTH_FAILURES_PER_MINUTE: failed authentications per client address and minute (600 when not given; 0 off) */
  authFailuresPerMinute?: number;
}
