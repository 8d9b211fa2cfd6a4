// createRedis against real servers of this test's own: TLS with a CA of our
// own and a password, Sentinels in front of a primary (plain and over TLS),
// and a BullMQ queue and worker over the TLS connection.
import { readFileSync } from "node:fs";
import { Queue, Worker } from "bullmq";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger, createRedis, freePort, type RedisSettings } from "../src/index.js";
import { type Certs, makeCerts, type Server, startRedis, startTlsRedis, tlsAvailable } from "./redis-servers.js";

const log = createLogger("test", "error");
const PASSWORD = "s3cret:with@signs";
const tls = tlsAvailable();
const tlsTitle = tls.ok ? "over TLS" : `over TLS: NOT RUN HERE (${tls.why}); redis-options.test.ts covers the options`;
if (!tls.ok) console.warn(`redis-connect.test.ts: ${tls.why}; the TLS connections are not tried against a server`);

/** A connection from `settings` once it is ready, or the error that kept it from being so. */
async function connect(settings: RedisSettings, ms = 3000): Promise<{ redis: Redis; error?: Error }> {
  const redis = createRedis(settings, "ttr-test", log);
  const error = await new Promise<Error | undefined>((resolve) => {
    const timer = setTimeout(() => resolve(new Error(`not ready after ${ms} ms`)), ms);
    redis.once("ready", () => {
      clearTimeout(timer);
      resolve(undefined);
    });
  });
  return { redis, error };
}

const opened: Redis[] = [];
async function ready(settings: RedisSettings): Promise<Redis> {
  const { redis, error } = await connect(settings);
  opened.push(redis);
  if (error) throw error;
  return redis;
}

afterAll(() => {
  for (const r of opened) r.disconnect();
});

describe.runIf(tls.ok)(tlsTitle, () => {
  let certs: Certs;
  let server: Server;
  beforeAll(async () => {
    certs = makeCerts();
    server = await startTlsRedis(certs, PASSWORD);
  });
  afterAll(() => server?.stop());

  it("connects with rediss://, the CA of our own and the password apart from the URL", async () => {
    const redis = await ready({ url: `rediss://127.0.0.1:${server.port}`, tlsCa: readFileSync(certs.ca), password: PASSWORD });
    expect(await redis.ping()).toBe("PONG");
    expect(await redis.client("GETNAME")).toBe("ttr-test");
  });

  it("connects with redis:// plus tls and the percent-encoded password in the URL", async () => {
    const redis = await ready({ url: `redis://:${encodeURIComponent(PASSWORD)}@127.0.0.1:${server.port}/3`, tls: true, tlsCa: readFileSync(certs.ca) });
    expect(await redis.ping()).toBe("PONG");
  });

  it("refuses a server whose certificate does not chain to a trusted CA", async () => {
    const { redis, error } = await connect({ url: `rediss://127.0.0.1:${server.port}`, password: PASSWORD }, 1500);
    opened.push(redis);
    expect(error?.message).toMatch(/not ready/);
    expect(redis.status).not.toBe("ready");
  });

  it("without the password, commands are refused", async () => {
    const { redis } = await connect({ url: `rediss://127.0.0.1:${server.port}`, tlsCa: readFileSync(certs.ca) }, 1500);
    opened.push(redis);
    await expect(redis.ping()).rejects.toThrow(/NOAUTH/);
  });

  it("carries a BullMQ job from a queue to a worker", async () => {
    const settings = { url: `rediss://127.0.0.1:${server.port}`, tlsCa: readFileSync(certs.ca), password: PASSWORD };
    const queue = new Queue("tls-check", { connection: await ready(settings) });
    const done = new Promise<unknown>((resolve) => {
      const worker = new Worker("tls-check", async (job) => job.data, { connection: createRedis(settings, "ttr-test-worker", log) });
      worker.on("completed", (job) => resolve(worker.close().then(() => job.returnvalue)));
    });
    await queue.add("j", { hello: "tls" });
    expect(await done).toEqual({ hello: "tls" });
    await queue.close();
  });

  it("finds the primary through Sentinels reached over TLS", async () => {
    const primary = server.port;
    const port = await freePort();
    const sentinel = await startRedis(
      [
        "port 0",
        `tls-port ${port}`,
        `tls-cert-file ${certs.cert}`,
        `tls-key-file ${certs.key}`,
        `tls-ca-cert-file ${certs.ca}`,
        "tls-auth-clients no",
        "tls-replication yes",
        `sentinel monitor tlsprimary 127.0.0.1 ${primary} 1`,
        `sentinel auth-pass tlsprimary ${PASSWORD}`,
      ],
      port,
      true,
    );
    try {
      const redis = await ready({ sentinels: [{ host: "127.0.0.1", port }], sentinelName: "tlsprimary", password: PASSWORD, tlsCa: readFileSync(certs.ca) });
      expect(await redis.ping()).toBe("PONG");
    } finally {
      await sentinel.stop();
    }
  });
});

describe("through Sentinels", () => {
  let primary: Server;
  let sentinel: Server;
  it("asks a Sentinel (with a password of its own) for the primary, and commands reach it", async () => {
    const primaryPort = await freePort();
    primary = await startRedis([`port ${primaryPort}`, `requirepass ${PASSWORD}`], primaryPort);
    const port = await freePort();
    sentinel = await startRedis([`port ${port}`, "requirepass sentinel-pw", `sentinel monitor ttrprimary 127.0.0.1 ${primaryPort} 1`, `sentinel auth-pass ttrprimary ${PASSWORD}`], port, true);
    const redis = await ready({ sentinels: [{ host: "127.0.0.1", port: await freePort() }, { host: "127.0.0.1", port }], sentinelName: "ttrprimary", password: PASSWORD, sentinelPassword: "sentinel-pw" });
    await redis.set("ttr-test:sentinel", "yes");
    const direct = await ready({ url: `redis://127.0.0.1:${primaryPort}`, password: PASSWORD });
    expect(await direct.get("ttr-test:sentinel")).toBe("yes");
  });

  it("does not connect when the Sentinels know no primary of that name", async () => {
    const { redis, error } = await connect({ sentinels: [{ host: "127.0.0.1", port: sentinel.port }], sentinelName: "unknown", sentinelPassword: "sentinel-pw" }, 1500);
    opened.push(redis);
    expect(error?.message).toMatch(/not ready/);
  });

  afterAll(async () => {
    await sentinel?.stop();
    await primary?.stop();
  });
});

describe("a failover", () => {
  const servers: Server[] = [];
  afterAll(async () => {
    for (const s of servers.reverse()) await s.stop();
  });

  it("is followed: after the Sentinel promotes the replica, writes reach the new primary", async () => {
    const [a, b, s] = [await freePort(), await freePort(), await freePort()];
    servers.push(await startRedis([`port ${a}`, `requirepass ${PASSWORD}`, `masterauth ${PASSWORD}`], a));
    servers.push(await startRedis([`port ${b}`, `requirepass ${PASSWORD}`, `masterauth ${PASSWORD}`, `replicaof 127.0.0.1 ${a}`], b));
    servers.push(
      await startRedis([`port ${s}`, `sentinel monitor fo 127.0.0.1 ${a} 1`, `sentinel auth-pass fo ${PASSWORD}`, "sentinel down-after-milliseconds fo 1000", "sentinel failover-timeout fo 5000"], s, true),
    );
    const redis = await ready({ sentinels: [{ host: "127.0.0.1", port: s }], sentinelName: "fo", password: PASSWORD });
    await redis.set("ttr-test:failover", "before");
    const sentinelClient = await ready({ url: `redis://127.0.0.1:${s}` });
    // the Sentinel promotes the replica once it has seen it in sync (NOGOODSLAVE until then)
    let failover: unknown = null;
    for (let i = 0; i < 100 && failover !== "OK"; i++) {
      failover = await sentinelClient.call("SENTINEL", "FAILOVER", "fo").catch((e: Error) => e.message);
      if (failover !== "OK") await new Promise((r) => setTimeout(r, 200));
    }
    expect(failover).toBe("OK");
    // the port of the server the connection talks to
    const connectedTo = async () => Number(((await redis.call("CONFIG", "GET", "port").catch(() => [])) as string[])[1] ?? 0);
    expect(await connectedTo()).toBe(a);
    let port = a;
    for (let i = 0; i < 150 && port !== b; i++) {
      await new Promise((r) => setTimeout(r, 100));
      port = await connectedTo();
    }
    expect(port).toBe(b);
    const direct = await ready({ url: `redis://127.0.0.1:${b}`, password: PASSWORD });
    await redis.set("ttr-test:failover", "after");
    expect(await direct.get("ttr-test:failover")).toBe("after");
    expect((await direct.call("ROLE") as unknown[])[0]).toBe("master");
  }, 30_000);
});
