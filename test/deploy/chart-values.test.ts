// Text values the services parse at start, refused by the chart's schema the
// way the services refuse them, so a bad one fails `helm install` at once
// instead of leaving pods restarting (deploy/README.md, "Configure"):
//   - config.allowNetworks, each entry one CIDR range as the executor reads
//     TTR_ALLOW_NETWORKS (services/executor/src/net-guard.ts parseSubnet);
//   - api.trustProxy, TRUST_PROXY as the api reads it (services/api/src/env.ts:
//     false, true, a hop count, or what express's proxy-addr compiles).
// Each value is checked three ways: Helm with the schema, the schema's pattern
// here in JavaScript over generated values, and the service's own loadEnv.
import { readFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { loadEnv as apiEnv } from "../../services/api/src/env.js";
import { loadEnv as executorEnv } from "../../services/executor/src/env.js";
import { destroyAgents, isBlockedAddress } from "../../services/executor/src/net-guard.js";
import { chartDir, envOf, find, helm, type K8sObject, NAMESPACE, RELEASE, render } from "./chart.js";

afterAll(() => destroyAgents());

const required = { DATABASE_URL: "postgresql://u:p@h:5432/d", REDIS_URL: "redis://h:6379/0" };
const accepts = (load: (env: NodeJS.ProcessEnv) => unknown, env: NodeJS.ProcessEnv): boolean => {
  try {
    load({ ...required, ...env });
    return true;
  } catch {
    return false;
  }
};
const executorAccepts = (list: string) => accepts(executorEnv, { TTR_ALLOW_NETWORKS: list });
const apiAccepts = (value: string) => accepts(apiEnv, { TRUST_PROXY: value });

const schema = JSON.parse(readFileSync(path.join(chartDir, "values.schema.json"), "utf8"));
// Helm matches patterns with Go's RE2; these use only syntax RE2 and JavaScript read alike.
const allowPattern = new RegExp(schema.properties.config.properties.allowNetworks.items.pattern);
const trustPattern = new RegExp(schema.properties.api.properties.trustProxy.pattern);

/** `helm template` with one value given as JSON (commas, spaces and tabs kept as they are). */
const template = (key: string, value: unknown, extra: string[] = []) =>
  helm(["template", RELEASE, ".", "--namespace", NAMESPACE, "--set-json", `${key}=${JSON.stringify(value)}`, ...extra]);

// ---------------------------------------------------------------------------
// config.allowNetworks

const ALLOW_GOOD = [
  "10.20.0.0/16",
  "127.0.0.2/32",
  "0.0.0.0/0",
  "255.255.255.255/32",
  "10.1.2.3/8", // bits past the prefix are ignored
  "10.0.0.0/08", // the executor reads up to 3 digits
  "10.0.0.0/008",
  "10.0.0.0/032",
  "fd00:1::/64",
  "FD00:1::/064",
  "::/0",
  "::1/128",
  "fe80::/10",
  "2001:0db8:0000:0000:0000:0000:0000:0001/128",
  "1:2:3:4:5:6:7::/112",
  "::2:3:4:5:6:7:8/128",
  "::ffff:10.0.0.0/104",
  "::ffff:127.0.0.2/128",
  "64:ff9b::10.0.0.1/128",
  "1:2:3:4:5:6:1.2.3.4/128",
];

// entries the executor stops on
const ALLOW_BAD = [
  "10.0.0.0/99",
  "300.1.1.1/8",
  "10.0.0.0/33",
  "10.0.0.0/0032",
  "fd00::/129",
  "::1/0128",
  "10.0.0.1",
  "fd00::",
  "10.0.0.0/",
  "10.0.0/8",
  "010.0.0.0/8",
  "10.0.0.0/255.0.0.0",
  "fd00:::1/64",
  "1:2:3:4:5:6:7:8:9/64",
  "fe80::1%eth0/64",
  "::ffff:10.0.0.256/104",
  "example.com/32",
];

// The executor would skip, trim or split these, but each entry is also a
// NetworkPolicy ipBlock cidr (networkPolicy.enabled), which takes one range only.
const ALLOW_NOT_ONE_RANGE = ["", " 10.0.0.0/8", "10.0.0.0/8 ", "10.0.0.0/8,10.1.0.0/16"];

describe("config.allowNetworks", () => {
  it("the executor takes every good entry and refuses every bad one (the lists below are right)", () => {
    for (const entry of ALLOW_GOOD) expect(executorAccepts(entry), entry).toBe(true);
    for (const entry of ALLOW_BAD) expect(executorAccepts(entry), entry).toBe(false);
    expect(() => executorEnv({ ...required, TTR_ALLOW_NETWORKS: "10.0.0.0/99" })).toThrow(/TTR_ALLOW_NETWORKS.*not a CIDR range/);
  });

  it("renders every good entry into TTR_ALLOW_NETWORKS and the NetworkPolicy, and the executor reads the result", async () => {
    const objects = await render([], ["networkPolicy.enabled=true", `config.allowNetworks={${ALLOW_GOOD.join(",")}}`]);
    const rendered: string = find(objects, "ConfigMap", "-config").data.TTR_ALLOW_NETWORKS;
    expect(rendered).toBe(ALLOW_GOOD.join(","));
    const subnets = executorEnv({ ...required, TTR_ALLOW_NETWORKS: rendered }).TTR_ALLOW_NETWORKS;
    expect(subnets).toHaveLength(ALLOW_GOOD.length);
    // the executor's policy is built from them (net.BlockList takes each); 0.0.0.0/0 lets all IPv4 through
    expect(isBlockedAddress("192.168.1.1")).toBe(true);
    expect(isBlockedAddress("192.168.1.1", subnets)).toBe(false);
    const egress = find(objects, "NetworkPolicy", "-executor").spec.egress as Array<{ to: Array<{ ipBlock?: { cidr: string } }> }>;
    const cidrs = egress.flatMap((rule) => rule.to.flatMap((peer) => (peer.ipBlock ? [peer.ipBlock.cidr] : [])));
    expect(cidrs).toEqual(["0.0.0.0/0", ...ALLOW_GOOD]);
  });

  it.concurrent.for([...ALLOW_BAD, ...ALLOW_NOT_ONE_RANGE])("refuses the entry %j", async (entry, { expect }) => {
    const res = await template("config.allowNetworks", ["10.20.0.0/16", entry]);
    expect(res.code, "helm template rendered it").not.toBe(0);
    expect(res.stderr).toContain("at '/config/allowNetworks/1'");
  });

  it("the pattern takes exactly the entries the executor takes, over generated ones, in JavaScript and in Helm", async () => {
    const random = mulberry32(20250611);
    const entries = Array.from({ length: 6000 }, () => randomEntry(random, ALLOW_PREFIXES));
    const disagree: string[] = [];
    for (const entry of entries) {
      // one range per entry: nothing the executor would trim, split or skip
      expect(entry).not.toMatch(/[\s,]|^$/);
      const schemaSays = allowPattern.test(entry);
      if (schemaSays !== executorAccepts(entry)) disagree.push(`${entry} (schema ${schemaSays ? "takes" : "refuses"} it)`);
    }
    expect(disagree).toEqual([]);
    // both sides are well represented
    const taken = entries.filter((e) => allowPattern.test(e)).length;
    expect(taken).toBeGreaterThan(600);
    expect(taken).toBeLessThan(5400);
    // Helm (Go's regexp) refuses the same ones: it names every entry that fails
    const some = entries.slice(0, 2000);
    const res = await template("config.allowNetworks", some);
    const refusedByHelm = new Set([...res.stderr.matchAll(/at '\/config\/allowNetworks\/(\d+)'/g)].map((m) => some[Number(m[1])]));
    expect(refusedByHelm.size).toBeGreaterThan(100);
    expect(some.filter((e) => refusedByHelm.has(e) === allowPattern.test(e))).toEqual([]);
  });
});

// ---------------------------------------------------------------------------
// api.trustProxy

const TRUST_GOOD = [
  "false",
  "true",
  "0",
  "1",
  "2",
  "10",
  " 3 ",
  "loopback",
  "linklocal",
  "uniquelocal",
  "  loopback  ",
  "loopback, linklocal, uniquelocal",
  "loopback,10.0.0.0/8",
  "loopback ,\t10.0.0.0/8 ,  uniquelocal",
  "10.0.0.1",
  "10.0.0.0/8",
  "10.0.0.0/1",
  "10.0.0.0/32",
  "10.0.0.0/08",
  "10.0.0.0/0008",
  "10.0.0.0/255.0.0.0",
  "192.168.0.0/255.255.255.128",
  "10.0.0.1/255.255.255.255",
  "128.0.0.0/128.0.0.0",
  "::1",
  "fd00::/8",
  "FD00::/0128",
  "fe80::/10, fc00::/7",
  "::ffff:10.0.0.1",
  "::ffff:10.0.0.0/104",
  "2001:db8::1/128",
  "1:2:3:4:5:6:7:8",
  "10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, 127.0.0.1, ::1",
];

const TRUST_BAD = [
  "bogus",
  "TRUE",
  "False",
  "yes",
  "-1",
  "1.5",
  "loopback,",
  ",loopback",
  "loopback,,uniquelocal",
  "loopback uniquelocal",
  "Loopback",
  "localhost",
  "true,loopback",
  "10.0.0.0/0",
  "10.0.0.0/33",
  "fd00::/0",
  "fd00::/129",
  "10.0.0.0/255.0.255.0",
  "10.0.0.0/0.0.0.0",
  "::1/255.0.0.0",
  "10.0.0.0/8/8",
  "300.0.0.1",
  "10.0.0.0/",
  "fd00:::1",
  "10.0.0.0/-8",
];

describe("api.trustProxy", () => {
  it("the api takes every good value and refuses every bad one (the lists below are right)", () => {
    for (const value of ["", ...TRUST_GOOD]) expect(apiAccepts(value), JSON.stringify(value)).toBe(true);
    for (const value of TRUST_BAD) expect(apiAccepts(value), JSON.stringify(value)).toBe(false);
    expect(() => apiEnv({ ...required, TRUST_PROXY: "bogus" })).toThrow(/TRUST_PROXY.*invalid IP address: bogus/);
  });

  it.concurrent.for(TRUST_GOOD)("renders %j as TRUST_PROXY, which the api reads", async (value, { expect }) => {
    const res = await template("api.trustProxy", value);
    expect(res.code, res.stderr.slice(0, 300)).toBe(0);
    const objects = parseAllDocuments(res.stdout).map((d) => d.toJS() as K8sObject | null);
    const api = find(objects.filter((o): o is K8sObject => o !== null), "Deployment", "-api");
    const rendered = envOf(api.spec.template.spec.containers[0]).get("TRUST_PROXY")?.value;
    expect(rendered).toBe(value);
    expect(apiAccepts(rendered)).toBe(true);
  });

  it("renders empty as false, or one hop behind the chart's Ingress", async () => {
    for (const [set, expected] of [[[], "false"], [["--set", "api.ingress.enabled=true"], "1"]] as const) {
      const res = await template("api.trustProxy", "", [...set]);
      expect(res.code, res.stderr).toBe(0);
      expect(res.stdout).toContain(`- name: TRUST_PROXY\n              value: "${expected}"`);
      expect(apiAccepts(expected)).toBe(true);
    }
  });

  it.concurrent.for(TRUST_BAD)("refuses %j", async (value, { expect }) => {
    const res = await template("api.trustProxy", value);
    expect(res.code, "helm template rendered it").not.toBe(0);
    expect(res.stderr).toContain("at '/api/trustProxy'");
  });

  it("the pattern never takes a value the api refuses, and takes every one written with Node-valid addresses, over generated ones", () => {
    const random = mulberry32(20250612);
    let taken = 0;
    const disagree: string[] = [];
    for (let i = 0; i < 4000; i++) {
      const value = randomTrustProxy(random);
      const schemaSays = trustPattern.test(value);
      const apiSays = apiAccepts(value);
      if (schemaSays) taken++;
      // Refused by the schema but taken by the api: only forms outside the
      // documented ones (ipaddr.js reads "10" or "0x0a.0.0.1" as IPv4 addresses).
      if (schemaSays ? !apiSays : apiSays && isDocumentedForm(value)) disagree.push(`${JSON.stringify(value)} (schema ${schemaSays ? "takes" : "refuses"} it)`);
    }
    expect(disagree).toEqual([]);
    expect(taken).toBeGreaterThan(350);
    expect(taken).toBeLessThan(3600);
  });
});

// ---------------------------------------------------------------------------
// generated values

/** A small seeded PRNG (mulberry32), so a failure is reproducible. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(random: () => number, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

const OCTETS = ["0", "1", "7", "9", "10", "99", "100", "172", "199", "200", "249", "250", "255", "255", "256", "300", "01", "010", "00", "1000"];
const GROUPS = ["0", "1", "64", "ff", "fd00", "FFFF", "ff9b", "db8", "0db8", "0000", "12345", "g1", "fe80"];
const ALLOW_PREFIXES: Array<string | null> = [null, "", "0", "00", "000", "0000", "1", "8", "08", "008", "16", "24", "29", "31", "32", "032", "33", "39", "40", "64", "099", "99", "100", "104", "109", "119", "120", "128", "0128", "129", "130", "200", "999", "-1", "255.0.0.0"];
const TRUST_PREFIXES: Array<string | null> = [
  ...ALLOW_PREFIXES,
  null,
  null,
  "0032",
  "00000128",
  "255.255.255.128",
  "255.255.0.0",
  "128.0.0.0",
  "255.255.255.255",
  "255.0.255.0",
  "0.0.0.0",
  "254.0.0.0",
  "255.255.255.254",
  "255.255.128.1",
];

function randomIPv4(random: () => number): string {
  const count = random() < 0.9 ? 4 : pick(random, [3, 5]);
  return Array.from({ length: count }, () => pick(random, OCTETS)).join(".");
}

function randomIPv6(random: () => number): string {
  const tail = random() < 0.2 ? randomIPv4(random) : null;
  const count = Math.floor(random() * (tail ? 8 : 10));
  const groups = Array.from({ length: count }, () => pick(random, GROUPS));
  if (tail) groups.push(tail);
  if (random() < 0.7 || groups.length < 2) {
    // "::" in one place (sometimes in two)
    for (let n = random() < 0.08 ? 2 : 1; n > 0; n--) groups.splice(Math.floor(random() * (groups.length + 1)), 0, "");
  }
  let text = groups.join(":");
  if (text.startsWith(":") && !text.startsWith("::")) text = `:${text}`;
  if (text.endsWith(":") && !text.endsWith("::")) text = `${text}:`;
  if (text === "") text = "::";
  if (random() < 0.03) text += "%eth0";
  return text;
}

function randomAddress(random: () => number): string {
  const r = random();
  if (r < 0.45) return randomIPv4(random);
  if (r < 0.97) return randomIPv6(random);
  return pick(random, ["example.com", "localhost", "::ffff:10.0.0.1", "0x0a.0.0.1", "10"]);
}

function randomEntry(random: () => number, prefixes: ReadonlyArray<string | null>): string {
  const address = randomAddress(random);
  const prefix = pick(random, prefixes);
  return prefix === null ? address : `${address}/${prefix}`;
}

const SPACES = ["", "", "", " ", "  ", "\t", " \t "];

function randomTrustProxy(random: () => number): string {
  const r = random();
  let body: string;
  if (r < 0.08) body = pick(random, ["", "false", "true", "0", "1", "12", "007", "TRUE", "-1", "1.5", "yes"]);
  else {
    const entries = Array.from({ length: 1 + Math.floor(random() * 3) }, () =>
      random() < 0.15 ? pick(random, ["loopback", "linklocal", "uniquelocal", "Loopback", "local", ""]) : randomEntry(random, TRUST_PREFIXES),
    );
    body = entries.map((e, i) => (i === 0 ? e : `${pick(random, SPACES)},${pick(random, SPACES)}${e}`)).join("");
  }
  return `${pick(random, SPACES)}${body}${pick(random, SPACES)}`;
}

/**
 * The forms the schema promises to take: "", false, true, a hop count, or a
 * list of keywords and addresses Node's net.isIP reads (no zone index), each
 * with no range, a decimal prefix, or (IPv4) a netmask.
 */
function isDocumentedForm(value: string): boolean {
  const text = value.trim();
  if (text === "" || text === "false" || text === "true" || /^\d+$/.test(text)) return true;
  return text.split(",").every((raw) => {
    const entry = raw.trim();
    if (["loopback", "linklocal", "uniquelocal"].includes(entry)) return true;
    const slash = entry.lastIndexOf("/");
    const address = slash === -1 ? entry : entry.slice(0, slash);
    const range = slash === -1 ? null : entry.slice(slash + 1);
    if (address.includes("%") || net.isIP(address) === 0) return false;
    return range === null || /^\d+$/.test(range) || (net.isIPv4(address) && net.isIPv4(range));
  });
}
