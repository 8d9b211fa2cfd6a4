// How each service reaches Redis (docs/configuration.md, Redis): a URL, or
// Sentinels that name the current primary; a password given apart from the
// URL (so it can come from a Secret of its own); TLS with an optional CA of
// your own. Turned here into ioredis options, which BullMQ's connections
// inherit (it duplicates the connection it is given).
import { readFileSync } from "node:fs";
import type { RedisOptions } from "ioredis";

export interface HostPort {
  host: string;
  port: number;
}

/** Where Redis is and how to talk to it; every field but one of `url`/`sentinels` is optional. */
export interface RedisSettings {
  /** `redis://[user:password@]host:port[/db]`, or `rediss://…` for TLS. With sentinels, only its user, password and db are used. */
  url?: string;
  /** overrides the URL's password */
  password?: string;
  /** TLS even with a `redis://` URL */
  tls?: boolean;
  /** PEM certificates Redis's certificate must chain to (instead of the system's); implies TLS */
  tlsCa?: string | Buffer;
  /** Sentinels to ask for the primary; when set, the URL's host and port are not used */
  sentinels?: HostPort[];
  /** the primary's name as the Sentinels know it */
  sentinelName?: string;
  /** the Sentinels' own password, when they have one */
  sentinelPassword?: string;
}

/** `host:port` entries separated by commas; an IPv6 address in brackets (`[fd00::1]:26379`). Throws on a malformed entry. */
export function parseHostPorts(list: string, defaultPort = 26379): HostPort[] {
  const out: HostPort[] = [];
  for (const entry of list.split(",").map((e) => e.trim())) {
    if (entry === "") continue;
    const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]\s]+))(?::(\d{1,5}))?$/.exec(entry);
    const port = m?.[3] === undefined ? defaultPort : Number(m[3]);
    if (!m || port < 1 || port > 65535) throw new Error(`"${entry}" is not host:port, e.g. sentinel-0.redis:26379`);
    out.push({ host: (m[1] ?? m[2])!, port });
  }
  return out;
}

/** Reconnect (through the Sentinels) and resend the command when the server has become a replica. */
function readOnly(err: Error): 2 | false {
  return err.message.startsWith("READONLY") ? 2 : false;
}

/** Query parameters a Redis URL may carry (docs/configuration.md, Redis). */
const URL_PARAMS = ["db", "family", "tls"] as const;

/**
 * The URL's query parameters, checked: `db` (a database number, when the
 * path names none), `family` (4 or 6: the address family used to resolve
 * the host) and `tls` (`true` or `1`: as `rediss://`). Anything else throws,
 * rather than being silently ignored.
 */
export function redisUrlParams(url: string): { db?: number; family?: 4 | 6; tls?: boolean } {
  const u = new URL(url);
  const out: { db?: number; family?: 4 | 6; tls?: boolean } = {};
  for (const [name, value] of u.searchParams) {
    switch (name) {
      case "db":
        if (!/^\d{1,5}$/.test(value)) throw new Error(`db=${value} in the Redis URL is not a database number`);
        if (u.pathname.replace(/^\//, "") !== "") throw new Error("the Redis URL names its database twice (in its path and as db=)");
        out.db = Number(value);
        break;
      case "family":
        if (value !== "4" && value !== "6") throw new Error(`family=${value} in the Redis URL: use 4 or 6`);
        out.family = Number(value) as 4 | 6;
        break;
      case "tls":
        if (!["true", "1", "false", "0"].includes(value)) throw new Error(`tls=${value} in the Redis URL: use true or false`);
        out.tls = value === "true" || value === "1";
        break;
      default:
        throw new Error(`the Redis URL's query parameter "${name}" is not supported (supported: ${URL_PARAMS.join(", ")})`);
    }
  }
  return out;
}

/** The URL's parts ioredis takes as options; the password percent-decoded. */
function urlParts(url: string): RedisOptions & { tls?: object } {
  const u = new URL(url);
  const db = u.pathname.replace(/^\//, "");
  const params = redisUrlParams(url);
  return {
    host: u.hostname.replace(/^\[(.*)\]$/, "$1") || "127.0.0.1",
    port: u.port ? Number(u.port) : 6379,
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    ...(db ? { db: Number(db) } : params.db !== undefined ? { db: params.db } : {}),
    ...(params.family ? { family: params.family } : {}),
    ...(u.protocol === "rediss:" || params.tls ? { tls: {} } : {}),
  };
}

/**
 * The ioredis options for `settings`: a pure function, so what a setting does
 * is tested without a server. With sentinels and TLS, the Sentinels are
 * reached over TLS too, with the same CA.
 */
export function redisOptions(settings: RedisSettings): RedisOptions {
  if (!settings.url && !settings.sentinels?.length) throw new Error("Redis: give a URL or at least one Sentinel");
  const fromUrl = settings.url ? urlParts(settings.url) : {};
  const useTls = settings.tls === true || settings.tlsCa !== undefined || fromUrl.tls !== undefined;
  const tls = useTls ? (settings.tlsCa !== undefined ? { ca: settings.tlsCa } : {}) : undefined;
  const options: RedisOptions = { ...fromUrl, tls };
  if (!useTls) delete options.tls;
  if (settings.password) options.password = settings.password;
  if (settings.sentinels?.length) {
    delete options.host;
    delete options.port;
    options.sentinels = settings.sentinels.map((s) => ({ ...s }));
    options.name = settings.sentinelName ?? "mymaster";
    if (settings.sentinelPassword) options.sentinelPassword = settings.sentinelPassword;
    // Follow a failover at once: the Sentinels announce the new primary, and
    // a write refused by the old one (now a replica) reconnects and is sent again.
    options.failoverDetector = true;
    options.reconnectOnError = readOnly;
    if (tls) {
      options.enableTLSForSentinelMode = true;
      options.sentinelTLS = tls;
    }
  }
  return options;
}

/** The settings a service's configuration gives (see commonEnv); reads the CA file once, failing with its path. */
export function redisSettingsOf(env: {
  REDIS_URL?: string;
  REDIS_PASSWORD?: string;
  REDIS_TLS?: boolean;
  REDIS_TLS_CA_FILE?: string;
  REDIS_SENTINELS?: HostPort[];
  REDIS_SENTINEL_NAME?: string;
  REDIS_SENTINEL_PASSWORD?: string;
}): RedisSettings {
  let tlsCa: Buffer | undefined;
  if (env.REDIS_TLS_CA_FILE) {
    try {
      tlsCa = readFileSync(env.REDIS_TLS_CA_FILE);
    } catch (err) {
      throw new Error(`Invalid configuration: REDIS_TLS_CA_FILE ${env.REDIS_TLS_CA_FILE} cannot be read (${(err as Error).message})`);
    }
  }
  return {
    ...(env.REDIS_URL ? { url: env.REDIS_URL } : {}),
    ...(env.REDIS_PASSWORD ? { password: env.REDIS_PASSWORD } : {}),
    ...(env.REDIS_TLS ? { tls: true } : {}),
    ...(tlsCa ? { tlsCa } : {}),
    ...(env.REDIS_SENTINELS?.length ? { sentinels: env.REDIS_SENTINELS, sentinelName: env.REDIS_SENTINEL_NAME ?? "mymaster" } : {}),
    ...(env.REDIS_SENTINEL_PASSWORD ? { sentinelPassword: env.REDIS_SENTINEL_PASSWORD } : {}),
  };
}
