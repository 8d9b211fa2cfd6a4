// What each Redis setting turns into: the ioredis options, and the variables
// that give them (docs/configuration.md, Redis).
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Joi from "joi";
import { describe, expect, it } from "vitest";
import { commonEnv, parseHostPorts, readEnv, redisOptions, redisSettingsOf, type CommonEnv } from "../src/index.js";

const read = (env: NodeJS.ProcessEnv) => readEnv<CommonEnv>(Joi.object(commonEnv), { DATABASE_URL: "postgresql://u@db:5432/ttr", ...env });

describe("redisOptions", () => {
  it("takes host, port, user, percent-decoded password and database number from the URL", () => {
    expect(redisOptions({ url: "redis://app:p%40ss%3Aword@redis.internal:6380/2" })).toEqual({ host: "redis.internal", port: 6380, username: "app", password: "p@ss:word", db: 2 });
    expect(redisOptions({ url: "redis://[fd00::5]" })).toEqual({ host: "fd00::5", port: 6379 });
  });

  it("uses TLS for rediss://, for tls: true, and with a CA of its own (verified against it)", () => {
    expect(redisOptions({ url: "rediss://r:6379" }).tls).toEqual({});
    expect(redisOptions({ url: "redis://r:6379", tls: true }).tls).toEqual({});
    expect(redisOptions({ url: "redis://r:6379", tlsCa: "PEM" }).tls).toEqual({ ca: "PEM" });
    expect(redisOptions({ url: "redis://r:6379" })).not.toHaveProperty("tls");
  });

  it("a password given apart wins over the URL's", () => {
    expect(redisOptions({ url: "redis://:old@r:6379", password: "fromSecret" }).password).toBe("fromSecret");
  });

  it("with Sentinels: no host or port, the primary's name, the Sentinels' password, TLS to the Sentinels as well", () => {
    const o = redisOptions({
      url: "rediss://:pw@ignored:1/1",
      sentinels: [{ host: "s0", port: 26379 }, { host: "s1", port: 26380 }],
      sentinelName: "ttr-primary",
      sentinelPassword: "sp",
      tlsCa: "PEM",
    });
    expect(o).toEqual({
      failoverDetector: true,
      reconnectOnError: expect.any(Function),
      password: "pw",
      db: 1,
      tls: { ca: "PEM" },
      sentinels: [{ host: "s0", port: 26379 }, { host: "s1", port: 26380 }],
      name: "ttr-primary",
      sentinelPassword: "sp",
      enableTLSForSentinelMode: true,
      sentinelTLS: { ca: "PEM" },
    });
    const plain = redisOptions({ sentinels: [{ host: "s0", port: 26379 }] });
    expect(plain).toMatchObject({ sentinels: [{ host: "s0", port: 26379 }], name: "mymaster", failoverDetector: true });
    expect(plain.reconnectOnError?.(new Error("READONLY You can't write against a read only replica."))).toBe(2);
    expect(plain.reconnectOnError?.(new Error("ERR wrong number of arguments"))).toBe(false);
  });

  it("takes db, family and tls from the URL's query", () => {
    expect(redisOptions({ url: "redis://r:6379?db=3&family=6" })).toEqual({ host: "r", port: 6379, db: 3, family: 6 });
    expect(redisOptions({ url: "redis://r:6379?tls=true" }).tls).toEqual({});
    expect(redisOptions({ url: "redis://r:6379?tls=0" })).not.toHaveProperty("tls");
  });

  it.each([
    ["redis://r:6379?timeout=5", 'query parameter "timeout" is not supported (supported: db, family, tls)'],
    ["redis://r:6379?family=5", "family=5 in the Redis URL: use 4 or 6"],
    ["redis://r:6379?db=two", "db=two in the Redis URL is not a database number"],
    ["redis://r:6379/1?db=2", "names its database twice"],
    ["redis://r:6379?tls=yes", "tls=yes in the Redis URL: use true or false"],
  ])("refuses %s rather than ignoring it", (url, message) => {
    expect(() => redisOptions({ url })).toThrow(message);
  });

  it("refuses settings with neither a URL nor Sentinels", () => {
    expect(() => redisOptions({})).toThrow("give a URL or at least one Sentinel");
  });
});

describe("parseHostPorts", () => {
  it("reads host:port lists, a bracketed IPv6 address, 26379 when the port is left out", () => {
    expect(parseHostPorts("s0.redis:26379, s1.redis:26380,[fd00::1]:5000,s2")).toEqual([
      { host: "s0.redis", port: 26379 },
      { host: "s1.redis", port: 26380 },
      { host: "fd00::1", port: 5000 },
      { host: "s2", port: 26379 },
    ]);
  });

  it.each(["s0:99999", "s0:", "a b:1", "[fd00::1:5000"])("refuses %s", (entry) => {
    expect(() => parseHostPorts(entry)).toThrow(`"${entry}" is not host:port`);
  });
});

describe("the variables", () => {
  it("REDIS_URL alone: as before", () => {
    const env = read({ REDIS_URL: "redis://127.0.0.1:6379" });
    expect(redisSettingsOf(env)).toEqual({ url: "redis://127.0.0.1:6379" });
    expect(env.REDIS_TLS).toBe(false);
  });

  it("REDIS_URL is required unless REDIS_SENTINELS is set", () => {
    expect(() => read({})).toThrow('"REDIS_URL" is required');
    const env = read({ REDIS_SENTINELS: "s0:26379,s1:26379", REDIS_SENTINEL_NAME: "ttr", REDIS_PASSWORD: "pw", REDIS_SENTINEL_PASSWORD: "sp" });
    expect(redisSettingsOf(env)).toEqual({
      password: "pw",
      sentinels: [{ host: "s0", port: 26379 }, { host: "s1", port: 26379 }],
      sentinelName: "ttr",
      sentinelPassword: "sp",
    });
  });

  it("an empty REDIS_URL counts as unset: fine with Sentinels, refused without", () => {
    expect(redisSettingsOf(read({ REDIS_URL: "", REDIS_SENTINELS: "s0:26379" }))).toEqual({ sentinels: [{ host: "s0", port: 26379 }], sentinelName: "mymaster" });
    expect(() => read({ REDIS_URL: "" })).toThrow('"REDIS_URL" is required');
  });

  it("a REDIS_URL query parameter it does not know stops the service with the parameter named", () => {
    expect(() => read({ REDIS_URL: "redis://r:6379/0?retry=3" })).toThrow('"REDIS_URL" failed custom validation because the Redis URL\'s query parameter "retry" is not supported');
    expect(read({ REDIS_URL: "redis://r:6379?family=6" }).REDIS_URL).toBe("redis://r:6379?family=6");
  });

  it("a malformed Sentinel list stops the service with the entry named", () => {
    expect(() => read({ REDIS_SENTINELS: "s0:26379,s1:notaport" })).toThrow('"s1:notaport" is not host:port');
  });

  it("empty variables (as a chart renders unset values) mean unset", () => {
    const env = read({ REDIS_URL: "redis://r:6379", REDIS_PASSWORD: "", REDIS_TLS: "", REDIS_TLS_CA_FILE: "", REDIS_SENTINELS: "", REDIS_SENTINEL_PASSWORD: "" });
    expect(redisSettingsOf(env)).toEqual({ url: "redis://r:6379" });
  });

  it("REDIS_TLS_CA_FILE is read once; a missing file stops the service naming the path", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "ttr-ca-"));
    writeFileSync(path.join(dir, "ca.pem"), "-----BEGIN CERTIFICATE-----\n");
    const settings = redisSettingsOf(read({ REDIS_URL: "redis://r:6379", REDIS_TLS: "true", REDIS_TLS_CA_FILE: path.join(dir, "ca.pem") }));
    expect(settings.tls).toBe(true);
    expect(String(settings.tlsCa)).toBe("-----BEGIN CERTIFICATE-----\n");
    expect(() => redisSettingsOf(read({ REDIS_URL: "redis://r:6379", REDIS_TLS_CA_FILE: path.join(dir, "nope.pem") }))).toThrow(`REDIS_TLS_CA_FILE ${path.join(dir, "nope.pem")} cannot be read`);
  });
});

describe("DATABASE_URL", () => {
  it("refuses a schema other than public, saying what to do instead", () => {
    expect(() => read({ REDIS_URL: "redis://r", DATABASE_URL: "postgresql://u@db:5432/ttr?schema=tenant_a" })).toThrow(
      "DATABASE_URL has schema=tenant_a: ttr keeps its tables in the public schema; give it a database of its own instead",
    );
    expect(read({ REDIS_URL: "redis://r", DATABASE_URL: "postgresql://u@db:5432/ttr?schema=public" }).DATABASE_URL).toBe("postgresql://u@db:5432/ttr?schema=public");
  });

  it("refuses PgBouncer transaction pooling (pgbouncer=true), saying why and what to use", () => {
    expect(() => read({ REDIS_URL: "redis://r", DATABASE_URL: "postgresql://u@bouncer:6432/ttr?pgbouncer=true" })).toThrow(
      "DATABASE_URL has pgbouncer=true (transaction pooling): ttr needs a session per connection; use PgBouncer in session mode and drop pgbouncer=true",
    );
    expect(read({ REDIS_URL: "redis://r", DATABASE_URL: "postgresql://u@bouncer:6432/ttr" }).DATABASE_URL).toBe("postgresql://u@bouncer:6432/ttr");
  });
});
