import type { Db, PgRunner } from "@ttr/db";
import type { Logger, OutageLog, prom } from "@ttr/platform";
import type { Redis } from "ioredis";

/** What the api's routes need, built once in main.ts (or by a test). */
export interface Deps {
  db: Db;
  /**
   * a pool of its own for the dashboard's reads (pages, a trigger's detail,
   * the overview, stats, usage), whose statements the server cancels past
   * DB_READ_TIMEOUT_MS (the request then answers 503), so a slow read never
   * holds the connections writes need. Prepared, each statement keeping one
   * generic plan per connection: planned for their values, these reads
   * spend most of their time planning over a month of day partitions
   * (docs/storage.md, "The dashboard's reads keep one plan")
   */
  reads: PgRunner;
  /** plain pg pool with prepared statements, for the statements of the hottest path (/schedule) */
  pg: PgRunner;
  /**
   * a connection of its own, only to ask whether PostgreSQL answers a
   * trivial statement (http/storage-watch.ts), so that the answer never
   * waits behind a busy pool; `pg` when not given
   */
  liveness?: PgRunner;
  redis: Redis;
  log: Logger;
  /**
   * logs a PostgreSQL outage once, and its end, whoever in the process sees
   * it first (a request, the storage watch, the readiness probe, the history
   * partitions' upkeep); one of its own when not given
   */
  dbOutage?: OutageLog;
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
