// Which Redis errors are an outage (the work passes once Redis recovers)
// rather than a wrong command, on servers of the test's own: one full
// (maxmemory reached under noeviction), one a replica (read-only). A MULTI
// that Redis discards for those reasons counts too; a wrong command does not.
import { Redis } from "ioredis";
import { afterAll, beforeAll, expect, it } from "vitest";
import { freePort, isRedisUnavailable, markEnded, markStarted } from "../src/index.js";
import { type Server, startRedis } from "./redis-servers.js";

let full: Server;
let replica: Server;
const clients: Redis[] = [];
const client = (port: number) => {
  const c = new Redis({ port, host: "127.0.0.1", maxRetriesPerRequest: 1 });
  clients.push(c);
  return c;
};

beforeAll(async () => {
  const [fullPort, replicaPort] = [await freePort(), await freePort()];
  full = await startRedis([`port ${fullPort}`, "maxmemory 1", "maxmemory-policy noeviction"], fullPort);
  // a replica of a primary that is not there: it refuses writes all the same
  replica = await startRedis([`port ${replicaPort}`, `replicaof 127.0.0.1 ${await freePort()}`], replicaPort);
});
afterAll(async () => {
  for (const c of clients) c.disconnect();
  await full?.stop();
  await replica?.stop();
});

const failure = (p: Promise<unknown>) => p.then(() => null, (err: unknown) => err);

it("a full Redis refusing a write, a script, or the attempts' admission MULTIs is unavailable", async () => {
  const redis = client(full.port);
  const set = await failure(redis.set("k", "v"));
  const script = await failure(redis.eval("return redis.call('SET', KEYS[1], '1')", 1, "k"));
  const started = await failure(markStarted(redis, "t", "p", ["tag"], "e", Date.now()));
  const ended = await failure(markEnded(redis, "t", "p", ["tag"], "e"));
  expect(String(set)).toMatch(/^ReplyError: OOM/);
  expect(String(started)).toMatch(/EXECABORT/);
  for (const err of [set, script, started, ended]) expect(isRedisUnavailable(err), String(err)).toBe(true);
});

it("a replica refusing a write is unavailable", async () => {
  const err = await failure(client(replica.port).set("k", "v"));
  expect(String(err)).toMatch(/READONLY/);
  expect(isRedisUnavailable(err)).toBe(true);
});

it("a wrong command is not", async () => {
  const redis = client(full.port);
  const unknown = await failure(redis.call("NO_SUCH_COMMAND"));
  const wrongType = await failure(redis.eval("return redis.call('INCR')", 0));
  for (const err of [unknown, wrongType]) {
    expect(err).toBeInstanceOf(Error);
    expect(isRedisUnavailable(err), String(err)).toBe(false);
  }
});
