// TTR_BLOCK_PRIVATE_NETWORKS: which addresses are refused, and that a blocked
// attempt is a Transport error that never reaches the target; and
// TTR_ALLOW_NETWORKS, the ranges let through, judged on the same address.
import type dns from "node:dns";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadEnv } from "../src/env.js";
import { parseSubnet, type Subnet, vettedLookup } from "../src/net-guard.js";
import { classify, isBlockedAddress, sendAttempt } from "../src/send.js";
import { target, useTarget } from "./send-support.js";
import { startTarget, type Target } from "./target-server.js";

describe("isBlockedAddress", () => {
  it.each([
    "0.0.0.0",
    "0.1.2.3",
    "10.1.2.3",
    "100.64.0.1",
    "100.127.255.255",
    "127.0.0.1",
    "127.255.255.254",
    "169.254.169.254",
    "172.16.0.1",
    "172.31.255.255",
    "192.0.0.8",
    "192.0.2.1",
    "192.168.1.1",
    "198.18.0.1",
    "198.51.100.7",
    "203.0.113.9",
    "224.0.0.1",
    "239.255.255.250",
    "240.0.0.1",
    "255.255.255.255",
    "::",
    "::1",
    "::ffff:127.0.0.1",
    "::ffff:7f00:1",
    "::ffff:10.0.0.1",
    "::ffff:a9fe:a9fe",
    "64:ff9b::7f00:1",
    "64:ff9b::10.0.0.1",
    "64:ff9b:1::1",
    "100::1",
    "2001:db8::1",
    "2001::1",
    "2002:7f00:1::1",
    "fc00::1",
    "fd12:3456::1",
    "fe80::1",
    "fe80::1%eth0",
    "fec0::1",
    "ff02::1",
    "not-an-address",
    "",
  ])("blocks %s", (address) => {
    expect(isBlockedAddress(address)).toBe(true);
  });

  it.each([
    "1.1.1.1",
    "8.8.8.8",
    "100.63.255.255",
    "100.128.0.0",
    "172.15.255.255",
    "172.32.0.0",
    "192.169.0.1",
    "223.255.255.255",
    "::ffff:8.8.8.8",
    "64:ff9b::808:808",
    "64:ff9b::8.8.4.4",
    "2606:4700:4700::1111",
    "2a00:1450:4001:80b::200e",
  ])("allows %s", (address) => {
    expect(isBlockedAddress(address)).toBe(false);
  });
});

describe("vettedLookup", () => {
  it.each([false, true])("refuses a name that resolves only to loopback (all: %s)", async (all) => {
    const error = await new Promise<NodeJS.ErrnoException | null>((resolve) =>
      vettedLookup("localhost", { all }, (err) => resolve(err)),
    );
    expect(error?.code).toBe("EBLOCKED");
  });
});

describe("attempts with blockPrivateNetworks", () => {
  useTarget();

  const attempt = (url: string, blockPrivateNetworks: boolean, method = "GET") =>
    sendAttempt({ method, url, headers: [], body: null, source: "schedule" }, { timeoutSeconds: 5, blockPrivateNetworks });

  it.each([
    ["an IPv4 literal", (port: number) => `http://127.0.0.1:${port}/a?b=c`],
    ["localhost", (port: number) => `http://localhost:${port}/`],
    ["a decimal IPv4 literal", (port: number) => `http://2130706433:${port}/`],
    ["the IPv6 loopback", (port: number) => `http://[::1]:${port}/`],
    ["an IPv4-mapped IPv6 literal", (port: number) => `http://[::ffff:127.0.0.1]:${port}/`],
    ["https to loopback", (port: number) => `https://127.0.0.1:${port}/`],
  ])("refuses %s as a Transport error; the target receives nothing", async (_label, urlOf) => {
    const url = urlOf(target.port);
    const r = await attempt(url, true, "POST");
    expect(r).toEqual({ kind: "network", errorMessage: `Transport error (POST ${url})`, timedOut: false, cause: expect.stringMatching(/ is not a public address$/) });
    expect(classify(r)).toBe("network_failure");
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(target.received).toHaveLength(0);
  });

  it.each([`http://127.0.0.1`, `http://localhost`, `http://2130706433`])("allows %s when blocking is off", async (host) => {
    const r = await attempt(`${host}:${target.port}/ok`, false);
    expect(classify(r)).toBe("success");
    expect(target.received).toHaveLength(1);
  });

  it("keeps the two modes on separate connection pools", async () => {
    expect(classify(await attempt(`http://127.0.0.1:${target.port}/`, false))).toBe("success");
    // A keep-alive socket to 127.0.0.1 now idles in the open pool; the guarded one must not use it.
    expect((await attempt(`http://127.0.0.1:${target.port}/`, true)).kind).toBe("network");
    expect(target.received).toHaveLength(1);
  });
});

const subnets = (...cidrs: string[]): Subnet[] => cidrs.map((c) => parseSubnet(c)!);

describe("parseSubnet", () => {
  it.each([
    ["10.20.0.0/16", { address: "10.20.0.0", prefix: 16, family: "ipv4" }],
    ["127.0.0.2/32", { address: "127.0.0.2", prefix: 32, family: "ipv4" }],
    ["0.0.0.0/0", { address: "0.0.0.0", prefix: 0, family: "ipv4" }],
    ["fd00:1::/64", { address: "fd00:1::", prefix: 64, family: "ipv6" }],
    ["::ffff:127.0.0.2/128", { address: "::ffff:127.0.0.2", prefix: 128, family: "ipv6" }],
  ])("reads %s", (text, subnet) => {
    expect(parseSubnet(text)).toEqual(subnet);
  });

  it.each(["10.0.0.1", "10.0.0.0/33", "::/129", "10.0.0/8", "010.0.0.0/8", "fe80::1%eth0/64", "host.example/32", "10.0.0.0/-1", "10.0.0.0/", "/8", " 10.0.0.0/8", ""])(
    "refuses %j",
    (text) => {
      expect(parseSubnet(text)).toBeNull();
    },
  );
});

describe("TTR_ALLOW_NETWORKS in the executor's configuration", () => {
  const base = { DATABASE_URL: "postgresql://127.0.0.1/x", REDIS_URL: "redis://127.0.0.1:6379" };

  it("is empty by default, and a comma-separated list of ranges otherwise", () => {
    expect(loadEnv(base).TTR_ALLOW_NETWORKS).toEqual([]);
    expect(loadEnv({ ...base, TTR_ALLOW_NETWORKS: "" }).TTR_ALLOW_NETWORKS).toEqual([]);
    expect(loadEnv({ ...base, TTR_ALLOW_NETWORKS: "10.20.0.0/16, fd00:1::/64," }).TTR_ALLOW_NETWORKS).toEqual(subnets("10.20.0.0/16", "fd00:1::/64"));
  });

  it.each(["10.20.0.1", "10.20.0.0/16,300.1.0.0/16", "fd00::/200", "internal.example/24"])("refuses %j, naming the variable and the entry", (value) => {
    const bad = value.split(",").at(-1)!;
    expect(() => loadEnv({ ...base, TTR_ALLOW_NETWORKS: value })).toThrow(`"TTR_ALLOW_NETWORKS" failed custom validation because "${bad}" is not a CIDR range`);
  });
});

describe("isBlockedAddress with allowed ranges", () => {
  it.each([
    ["127.0.0.2/32", "127.0.0.2"],
    ["127.0.0.2/32", "::ffff:127.0.0.2"],
    ["127.0.0.2/32", "::ffff:7f00:2"],
    ["127.0.0.2/32", "64:ff9b::7f00:2"],
    ["::ffff:127.0.0.2/128", "127.0.0.2"],
    ["10.20.0.0/16", "10.20.255.1"],
    ["169.254.169.254/32", "169.254.169.254"],
    ["fd00:1::/64", "fd00:1::5"],
    ["::1/128", "::1"],
    ["fe80::/10", "fe80::1%eth0"],
  ])("%s lets %s through", (cidr, address) => {
    expect(isBlockedAddress(address)).toBe(true);
    expect(isBlockedAddress(address, subnets(cidr))).toBe(false);
  });

  it.each([
    ["127.0.0.2/32", "127.0.0.3"],
    ["127.0.0.2/32", "::ffff:127.0.0.3"],
    ["127.0.0.2/32", "127.0.0.1"],
    ["127.0.0.2/32", "::1"],
    ["10.20.0.0/16", "10.21.0.1"],
    ["fd00:1::/64", "fd00:2::1"],
    ["0.0.0.0/0", "not-an-address"],
  ])("%s still blocks %s", (cidr, address) => {
    expect(isBlockedAddress(address, subnets(cidr))).toBe(true);
  });

  it("keeps public addresses allowed", () => {
    expect(isBlockedAddress("8.8.8.8", subnets("10.0.0.0/8"))).toBe(false);
  });

  it("lets a hostname through only by its allowed addresses", async () => {
    const lookup = (all: boolean, allow: Subnet[]) =>
      new Promise<{ err: NodeJS.ErrnoException | null; address: string | dns.LookupAddress[] }>((resolve) =>
        vettedLookup("localhost", { all }, (err, address) => resolve({ err, address }), allow),
      );
    expect((await lookup(false, subnets("127.0.0.1/32"))).address).toBe("127.0.0.1");
    expect((await lookup(true, subnets("127.0.0.1/32"))).address).toEqual([{ address: "127.0.0.1", family: 4 }]);
    expect((await lookup(false, subnets("127.0.0.2/32"))).err?.code).toBe("EBLOCKED");
  });
});

describe("attempts with blockPrivateNetworks and allowed ranges, through real HTTP", () => {
  // Two loopback targets: 127.0.0.2 is allowed, 127.0.0.3 is not (both are blocked ranges).
  let allowedTarget: Target;
  let otherTarget: Target;
  beforeAll(async () => {
    allowedTarget = await startTarget("127.0.0.2");
    otherTarget = await startTarget("127.0.0.3");
  });
  afterAll(async () => {
    await allowedTarget.close();
    await otherTarget.close();
  });

  const attempt = (url: string, allow: string[]) =>
    sendAttempt({ method: "POST", url, headers: [], body: null, source: "schedule" }, { timeoutSeconds: 5, blockPrivateNetworks: true, allowNetworks: subnets(...allow) });

  it.each([
    ["127.0.0.2/32", "127.0.0.2"],
    ["127.0.0.2/32", "[::ffff:127.0.0.2]"],
    ["::ffff:127.0.0.2/128", "127.0.0.2"],
    ["127.0.0.0/30", "127.0.0.2"],
  ])("with %s, reaches http://%s", async (cidr, host) => {
    allowedTarget.received.length = 0;
    const r = await attempt(`http://${host}:${allowedTarget.port}/in`, [cidr]);
    expect(classify(r)).toBe("success");
    expect(allowedTarget.received.map((x) => x.url)).toEqual(["/in"]);
  });

  it.each([
    ["127.0.0.2/32", "127.0.0.3"],
    ["127.0.0.2/32", "[::ffff:127.0.0.3]"],
    ["127.0.0.2/32", "[::ffff:7f00:3]"],
    ["::ffff:127.0.0.2/128", "127.0.0.3"],
  ])("with %s, refuses http://%s as a Transport error; that target receives nothing", async (cidr, host) => {
    const url = `http://${host}:${otherTarget.port}/out`;
    const r = await attempt(url, [cidr]);
    expect(r).toEqual({ kind: "network", errorMessage: `Transport error (POST ${url})`, timedOut: false, cause: expect.stringMatching(/ is not a public address$/) });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(otherTarget.received).toHaveLength(0);
  });
});
