// Which addresses an attempt may connect to (TTR_BLOCK_PRIVATE_NETWORKS, with
// the ranges TTR_ALLOW_NETWORKS lets through it) and the process-wide
// keep-alive agents.
//
// The check, exceptions included, is made on the address actually connected
// to, so DNS rebinding cannot slip past it:
//   - a hostname goes through `vettedLookup`, the only resolver the guarded
//     agents use; addresses that fail the check are dropped before net.connect
//     sees them;
//   - an IP-literal host (net.connect skips lookup for those, and WHATWG URL
//     has already turned `http://2130706433/` into 127.0.0.1) is refused
//     before any socket exists;
//   - the socket's remoteAddress is checked again on `connect`, ahead of
//     every other listener, so not even a TLS ClientHello leaves if the two
//     checks above were ever bypassed.
// Pooled keep-alive sockets were vetted when they connected.
import dns from "node:dns";
import http from "node:http";
import https from "node:https";
import net from "node:net";
import type { Duplex } from "node:stream";
import { expandIPv6 } from "@ttr/platform";

/**
 * Not globally reachable: the IANA special-purpose registries' entries
 * marked "Globally Reachable: False" (or deprecated), plus multicast.
 * BlockList matches IPv4-mapped IPv6 (::ffff:a.b.c.d) against the IPv4 rules.
 */
const IPV4_BLOCKED: ReadonlyArray<readonly [string, number]> = [
  ["0.0.0.0", 8], // "this network"
  ["10.0.0.0", 8],
  ["100.64.0.0", 10], // CGNAT shared space
  ["127.0.0.0", 8],
  ["169.254.0.0", 16], // link-local, cloud metadata
  ["172.16.0.0", 12],
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.0.2.0", 24], // TEST-NET-1
  ["192.88.99.0", 24], // 6to4 relay anycast (deprecated)
  ["192.168.0.0", 16],
  ["198.18.0.0", 15], // benchmarking
  ["198.51.100.0", 24], // TEST-NET-2
  ["203.0.113.0", 24], // TEST-NET-3
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, includes 255.255.255.255
];

const IPV6_BLOCKED: ReadonlyArray<readonly [string, number]> = [
  ["::", 96], // unspecified, loopback, deprecated IPv4-compatible
  ["::ffff:0:0:0", 96], // IPv4-translated (RFC 2765)
  ["64:ff9b:1::", 48], // local-use NAT64 (64:ff9b::/96 is decoded instead)
  ["100::", 64], // discard-only
  ["100:0:0:1::", 64], // dummy prefix
  ["2001::", 23], // IETF protocol assignments, includes Teredo
  ["2001:db8::", 32], // documentation
  ["2002::", 16], // 6to4 (deprecated; embeds any IPv4 address)
  ["3fff::", 20], // documentation
  ["5f00::", 16], // SRv6 SIDs
  ["fc00::", 7], // unique local
  ["fe80::", 10], // link-local
  ["fec0::", 10], // site-local (deprecated)
  ["ff00::", 8], // multicast
];

const blockList = new net.BlockList();
for (const [prefix, bits] of IPV4_BLOCKED) blockList.addSubnet(prefix, bits, "ipv4");
for (const [prefix, bits] of IPV6_BLOCKED) blockList.addSubnet(prefix, bits, "ipv6");

/** A range of addresses in CIDR notation: `10.20.0.0/16`, `fd00:1::/64`, `127.0.0.2/32`. */
export interface Subnet {
  address: string;
  prefix: number;
  family: "ipv4" | "ipv6";
}

/**
 * Reads one CIDR range; null when `text` is not one. The prefix length is
 * required (`10.1.2.3/32` for a single address); bits past it are ignored, as
 * routers do. No zone index (`fe80::1%eth0`): a range is not tied to an interface.
 */
export function parseSubnet(text: string): Subnet | null {
  const match = /^([^/%\s]+)\/(\d{1,3})$/.exec(text);
  if (!match) return null;
  const address = match[1]!;
  const prefix = Number(match[2]);
  const family = net.isIP(address);
  if (family === 4 && prefix <= 32) return { address, prefix, family: "ipv4" };
  if (family === 6 && prefix <= 128) return { address, prefix, family: "ipv6" };
  return null;
}

export function formatSubnet(subnet: Subnet): string {
  return `${subnet.address}/${subnet.prefix}`;
}

/**
 * The block with its exceptions. BlockList matches IPv4-mapped IPv6
 * addresses (::ffff:a.b.c.d) against IPv4 ranges and the other way round,
 * so `127.0.0.2/32` and `::ffff:127.0.0.2/128` allow the same address.
 */
class AddressPolicy {
  private readonly allowed = new net.BlockList();

  constructor(allow: readonly Subnet[]) {
    for (const s of allow) this.allowed.addSubnet(s.address, s.prefix, s.family);
  }

  /** True when an attempt must not connect to `address`. Anything that is not an IP address is refused. */
  isBlocked(address: string): boolean {
    const zone = address.indexOf("%");
    const ip = zone === -1 ? address : address.slice(0, zone);
    const family = net.isIP(ip);
    if (family === 4) return blockList.check(ip, "ipv4") && !this.allowed.check(ip, "ipv4");
    if (family !== 6) return true;
    // The well-known NAT64 prefix reaches whatever IPv4 address it embeds
    // (IPv6-only clusters with DNS64 see every IPv4 target this way): it is
    // judged as that address, and allowed as either form.
    const embedded = nat64Embedded(ip);
    if (embedded === null) return blockList.check(ip, "ipv6") && !this.allowed.check(ip, "ipv6");
    return blockList.check(embedded, "ipv4") && !this.allowed.check(embedded, "ipv4") && !this.allowed.check(ip, "ipv6");
  }
}

/** The IPv4 address inside 64:ff9b::/96, or null for any other IPv6 address. */
function nat64Embedded(ip: string): string | null {
  const lower = ip.toLowerCase();
  if (!lower.startsWith("64:ff9b:")) return null;
  const groups = expandIPv6(lower);
  if (groups === null || groups[0] !== 0x64 || groups[1] !== 0xff9b) return null;
  for (let i = 2; i < 6; i++) if (groups[i] !== 0) return null;
  const hi = groups[6]!;
  const lo = groups[7]!;
  return `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
}

function blockedError(target: string): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(`${target} is not a public address`);
  error.code = "EBLOCKED";
  return error;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;
type Lookup = (hostname: string, options: dns.LookupOptions, callback: LookupCallback) => void;

/** dns.lookup that only ever yields addresses `policy` lets through (mixed answers keep their allowed part). */
function vetted(policy: AddressPolicy): Lookup {
  return (hostname, options, callback) =>
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, "");
      const allowed = addresses.filter((a) => !policy.isBlocked(a.address));
      const first = allowed[0];
      if (first === undefined) return callback(blockedError(hostname), "");
      if (options.all) return callback(null, allowed);
      callback(null, first.address, first.family);
    });
}

type ConnectionCallback = (err: Error | null, stream: Duplex) => void;

/** Refuses IP literals up front and re-checks the peer on connect; see the file header. */
function guarded(
  policy: AddressPolicy,
  host: string | null | undefined,
  callback: ConnectionCallback | undefined,
  connect: () => Duplex | null | undefined,
): Duplex | null | undefined {
  if (host && net.isIP(host) !== 0 && policy.isBlocked(host)) {
    // Agent.createSocket accepts a socket or an error through the callback.
    callback?.(blockedError(host), undefined as unknown as Duplex);
    return undefined;
  }
  const socket = connect();
  if (socket instanceof net.Socket) {
    socket.prependOnceListener("connect", () => {
      const peer = socket.remoteAddress;
      if (peer === undefined || policy.isBlocked(peer)) socket.destroy(blockedError(peer ?? "unknown peer"));
    });
  }
  return socket;
}

class GuardedHttpAgent extends http.Agent {
  constructor(
    private readonly policy: AddressPolicy,
    options: http.AgentOptions,
  ) {
    super(options);
  }

  override createConnection(options: http.ClientRequestArgs, callback?: ConnectionCallback) {
    return guarded(this.policy, options.host, callback, () => super.createConnection(options, callback));
  }
}

class GuardedHttpsAgent extends https.Agent {
  constructor(
    private readonly policy: AddressPolicy,
    options: https.AgentOptions,
  ) {
    super(options);
  }

  override createConnection(options: https.RequestOptions, callback?: ConnectionCallback) {
    return guarded(this.policy, options.host, callback, () => super.createConnection(options, callback));
  }
}

/**
 * Idle pooled sockets are closed after 4 s, under the 5 s keep-alive of
 * common servers (Node's included), so a reused socket is rarely one the
 * target is closing at that moment. Targets that close sooner without
 * saying so (gunicorn after 2 s, some proxies after 1 s) still race a
 * request onto a dying socket: send.ts then sends it again on a new one.
 */
const AGENT_OPTIONS: http.AgentOptions = { keepAlive: true, timeout: 4_000, scheduling: "lifo" };
/** Agents that open a new connection for every request and keep none. */
const SINGLE_USE_OPTIONS: http.AgentOptions = { keepAlive: false };

export interface AgentPair {
  http: http.Agent;
  https: https.Agent;
  /** Same guard, never reusing a connection: for a request sent again after its pooled connection died. */
  singleUse: { http: http.Agent; https: https.Agent };
}

interface Guard {
  policy: AddressPolicy;
  lookup: Lookup;
  agents: AgentPair;
}

/** One guard per distinct allow list, made on first use: an executor uses one, tests a few. */
const guards = new Map<string, Guard>();

function guardOf(allow: readonly Subnet[]): Guard {
  const key = allow.map(formatSubnet).join(",");
  let guard = guards.get(key);
  if (guard === undefined) {
    const policy = new AddressPolicy(allow);
    const lookup = vetted(policy);
    const options = { ...AGENT_OPTIONS, lookup };
    const single = { ...SINGLE_USE_OPTIONS, lookup };
    const singleUse = { http: new GuardedHttpAgent(policy, single), https: new GuardedHttpsAgent(policy, single) };
    guard = { policy, lookup, agents: { http: new GuardedHttpAgent(policy, options), https: new GuardedHttpsAgent(policy, options), singleUse } };
    guards.set(key, guard);
  }
  return guard;
}

/** True when an attempt must not connect to `address`, `allow` being the ranges let through. */
export function isBlockedAddress(address: string, allow: readonly Subnet[] = []): boolean {
  return guardOf(allow).policy.isBlocked(address);
}

/** The guarded agents' resolver: dns.lookup keeping only the addresses an attempt may connect to. */
export function vettedLookup(hostname: string, options: dns.LookupOptions, callback: LookupCallback, allow: readonly Subnet[] = []): void {
  guardOf(allow).lookup(hostname, options, callback);
}

export const openAgents: AgentPair = {
  http: new http.Agent(AGENT_OPTIONS),
  https: new https.Agent(AGENT_OPTIONS),
  singleUse: { http: new http.Agent(SINGLE_USE_OPTIONS), https: new https.Agent(SINGLE_USE_OPTIONS) },
};

/** Keep-alive agents that refuse blocked addresses, `allow` being the ranges let through. */
export function guardedAgents(allow: readonly Subnet[] = []): AgentPair {
  return guardOf(allow).agents;
}

let destroyed = 0;

/** How many times destroyAgents ran: a request begun before the last time is not sent again (send.ts). */
export function agentsDestroyed(): number {
  return destroyed;
}

/** Closes every pooled socket (process shutdown, end of a test file). */
export function destroyAgents(): void {
  destroyed++;
  for (const pair of [openAgents, ...[...guards.values()].map((g) => g.agents)]) {
    for (const agent of [pair.http, pair.https, pair.singleUse.http, pair.singleUse.https]) agent.destroy();
  }
}
