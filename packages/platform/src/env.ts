// Each service reads its configuration once, at start-up, through a joi
// schema. Shared packages never read process.env.
import Joi from "joi";

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
  REDIS_URL: string;
  LOG_LEVEL: string;
  TTR_REDIS_PREFIX: string;
  TTR_DEFAULT_TIMEOUT_SECONDS: number;
  TTR_REAP_GRACE_SECONDS: number;
}

/** Settings every service shares (docs/configuration.md). */
export const commonEnv = {
  DATABASE_URL: Joi.string().uri({ scheme: ["postgres", "postgresql"] }).required().description("PostgreSQL connection URL"),
  REDIS_URL: Joi.string().uri({ scheme: ["redis", "rediss"] }).required().description("Redis connection URL"),
  LOG_LEVEL: Joi.string().valid("error", "warn", "info", "http", "verbose", "debug", "silly").default("info"),
  /** Prefix of every Redis key, so several installations or test runs can share a server. */
  TTR_REDIS_PREFIX: Joi.string().default("ttr"),
  /** test-only: default attempt timeout (docs/concepts.md, timeouts) */
  TTR_DEFAULT_TIMEOUT_SECONDS: Joi.number().integer().min(1).max(3600).default(300),
  /** test-only: grace after the timeout before a lost attempt is closed (docs/concepts.md, lost attempts) */
  TTR_REAP_GRACE_SECONDS: Joi.number().integer().min(0).max(3600).default(30),
};
