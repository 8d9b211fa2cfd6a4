// TTR_BLOCK_PRIVATE_NETWORKS (docs/configuration.md): which addresses are refused, and
// that a blocked attempt is a Transport error that never reaches the target.
import { describe, expect, it } from "vitest";
import { vettedLookup } from "../src/net-guard.js";
import { classify, isBlockedAddress, sendAttempt } from "../src/send.js";
import { target, useTarget } from "./send-support.js";

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
    expect(r).toEqual({ kind: "network", errorMessage: `Transport error (POST ${url})`, timedOut: false });
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
