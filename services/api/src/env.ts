import express from "express";
import Joi from "joi";
import { type CommonEnv, commonEnv, readEnv } from "@ttr/platform";

export interface ApiEnv extends CommonEnv {
  PORT: number;
  HOST: string;
  DB_POOL_SIZE: number;
  DB_READ_TIMEOUT_MS: number;
  TRUST_PROXY: boolean | number | string;
  TTR_AUTH_FAILURES_PER_MINUTE: number;
  TTR_COOKIE_SECURE?: boolean;
}

/** express's "trust proxy" setting from its text form: false, true, a hop count, or addresses and subnets. */
function trustProxy(text: string): boolean | number | string {
  if (text === "false" || text === "") return false;
  if (text === "true") return true;
  if (/^\d+$/.test(text)) return Number(text);
  // express compiles the list now, so a bad address is named here, with the variable
  express().set("trust proxy", text);
  return text;
}

export function loadEnv(env: NodeJS.ProcessEnv = process.env): ApiEnv {
  return readEnv<ApiEnv>(
    Joi.object({
      ...commonEnv,
      /** port of the public API, the session API and the dashboard */
      PORT: Joi.number().port().default(8080),
      /** interface to listen on */
      HOST: Joi.string().default("0.0.0.0"),
      /** PostgreSQL connections this process may open */
      DB_POOL_SIZE: Joi.number().integer().min(1).max(200).default(20),
      /**
       * longest a dashboard read may run before the server cancels it and
       * the request answers 503 (its pool is separate from the writes')
       */
      DB_READ_TIMEOUT_MS: Joi.number().integer().min(100).max(600_000).default(5_000),
      /**
       * Which proxies in front of the api to believe about the client
       * (X-Forwarded-For, X-Forwarded-Proto): "false" (none, the default),
       * a number of hops, or addresses and subnets ("loopback, uniquelocal").
       * Behind an Ingress set it, so sign-in limits count per real client and
       * the session cookie is Secure over HTTPS.
       */
      TRUST_PROXY: Joi.string().empty("").custom((v: string) => trustProxy(v.trim())).default(false),
      /**
       * Mark the session cookie Secure (true), or never (false). Unset, it
       * is Secure when the request came over HTTPS, which behind a proxy
       * depends on TRUST_PROXY being right: set it true wherever the
       * dashboard is served over HTTPS (the Helm chart does).
       */
      TTR_COOKIE_SECURE: Joi.boolean().empty(""),
      /**
       * Failed authentications (an unknown API key) one client address may
       * make in a minute before its requests with credentials are answered
       * 429 unread until the minute ends; 0 switches the budget off.
       * Loopback addresses are not counted (auth/failure-budget.ts).
       */
      TTR_AUTH_FAILURES_PER_MINUTE: Joi.number().integer().min(0).max(1_000_000).default(600),
    }),
    env,
  );
}
