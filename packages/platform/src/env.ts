// Each service reads its configuration once, at start-up, through a joi
// schema. Shared packages never read process.env.
import Joi from "joi";
import { type HostPort, parseHostPorts, redisUrlParams } from "./redis-options.js";

export function readEnv<T>(schema: Joi.ObjectSchema<T>, env: NodeJS.ProcessEnv = process.env): T {
  const { value, error } = schema.validate(env, { allowUnknown: true, stripUnknown: true, convert: true, abortEarly: false });
  if (error) {
    const details = error.details.map((d) => d.message).join("; ");
    throw new Error(`Invalid configuration: ${details}`);
  }
  return value;
}

/** The values of `commonEnv` once read. */
export interface CommonEnv {
  DATABASE_URL: string;
  /** absent only when REDIS_SENTINELS names the Sentinels */
  REDIS_URL?: string;
  REDIS_PASSWORD?: string;
  REDIS_TLS: boolean;
  REDIS_TLS_CA_FILE?: string;
  REDIS_SENTINELS: HostPort[];
  REDIS_SENTINEL_NAME: string;
  REDIS_SENTINEL_PASSWORD?: string;
  LOG_LEVEL: string;
  TTR_REDIS_PREFIX: string;
  TTR_DEFAULT_TIMEOUT_SECONDS: number;
  TTR_REAP_GRACE_SECONDS: number;
}

/** Settings every service shares (docs/configuration.md). */
export const commonEnv = {
  DATABASE_URL: Joi.string().uri({ scheme: ["postgres", "postgresql"] }).required().custom(sessionPooled).description("PostgreSQL connection URL"),
  /** `redis://` or `rediss://` (TLS); with REDIS_SENTINELS only its user, password and database number count */
  REDIS_URL: Joi.string()
    .empty("")
    .uri({ scheme: ["redis", "rediss"] })
    .custom((url: string) => {
      redisUrlParams(url);
      return url;
    })
    .required()
    .when("REDIS_SENTINELS", { is: Joi.array().max(0), otherwise: Joi.optional() })
    .description("Redis connection URL"),
  /** Redis password, instead of one in REDIS_URL (so it can come from a Secret key of its own) */
  REDIS_PASSWORD: Joi.string().empty(""),
  /** TLS to Redis even with a `redis://` URL */
  REDIS_TLS: Joi.boolean().truthy("1").falsy("0").empty("").default(false),
  /** PEM file of the CA Redis's certificate chains to, instead of the system's; implies TLS */
  REDIS_TLS_CA_FILE: Joi.string().empty(""),
  /** Sentinels as `host:port,host:port`: they name the primary, and REDIS_URL's host is not used */
  REDIS_SENTINELS: Joi.string().empty("").custom((v: string) => parseHostPorts(v)).default([]),
  /** the primary's name as the Sentinels know it */
  REDIS_SENTINEL_NAME: Joi.string().empty("").default("mymaster"),
  /** the Sentinels' own password, when they require one */
  REDIS_SENTINEL_PASSWORD: Joi.string().empty(""),
  LOG_LEVEL: Joi.string().valid("error", "warn", "info", "http", "verbose", "debug", "silly").default("info"),
  /** Prefix of every Redis key, so several installations or test runs can share a server. */
  TTR_REDIS_PREFIX: Joi.string().default("ttr"),
  /** test-only: default attempt timeout (docs/concepts.md, timeouts) */
  TTR_DEFAULT_TIMEOUT_SECONDS: Joi.number().integer().min(1).max(3600).default(300),
  /** test-only: grace after the timeout before a lost attempt is closed (docs/concepts.md, lost attempts) */
  TTR_REAP_GRACE_SECONDS: Joi.number().integer().min(0).max(3600).default(30),
};

/**
 * ttr needs a PostgreSQL session per pool connection: statements are
 * prepared once per connection, the scheduler's lease names its session's
 * backend and sets session timeouts, migrations hold a session advisory lock.
 * PgBouncer in transaction mode hands each transaction another server
 * session, so none of that holds: refused (docs/configuration.md, PgBouncer).
 * `pgbouncer=true` is how a URL says it goes through transaction pooling.
 */
function sessionPooled(url: string): string {
  const params = new URL(url).searchParams;
  if (params.get("pgbouncer") === "true") {
    throw new Error("DATABASE_URL has pgbouncer=true (transaction pooling): ttr needs a session per connection; use PgBouncer in session mode and drop pgbouncer=true");
  }
  // Prisma's `schema=` parameter: ttr's tables live in `public` (ttr migrate refuses another schema too)
  const schema = params.get("schema");
  if (schema !== null && schema !== "public") {
    throw new Error(`DATABASE_URL has schema=${schema}: ttr keeps its tables in the public schema; give it a database of its own instead`);
  }
  return url;
}
