// A budget of failed authentications per client address: past
// TTR_AUTH_FAILURES_PER_MINUTE requests with credentials that did not check
// out (an unknown API key, a malformed Authorization), further requests that
// carry credentials from that address are answered 429 before their body is
// read or their key looked up, until its minute ends. A client that sends a
// valid key never fails and never meets the budget.
//
// Counted in each api process (a lookup in a Map, nothing on the hot path of
// valid requests): with N replicas an address gets up to N budgets, which is
// enough to stop a client from making the api parse 10 MiB bodies or look
// up keys without end. Addresses on this host (loopback) are not counted:
// tests and local tools run there, and behind a proxy on the same host every
// client would share one address (set TRUST_PROXY so req.ip is the client's).
// docs/configuration.md and SECURITY.md say so.
import { isIP } from "node:net";
import type { NextFunction, Request, Response } from "express";
import { ApiError } from "@ttr/core";
import { expandIPv6 } from "@ttr/platform";

const WINDOW_MS = 60_000;
/** Past this many addresses tracked, windows that have ended are dropped. */
const TIDY_AT = 10_000;

interface Window {
  startedAt: number;
  failures: number;
}

export function isLoopback(address: string): boolean {
  const plain = address.startsWith("::ffff:") ? address.slice(7) : address;
  return plain === "::1" || (isIP(plain) === 4 && plain.startsWith("127."));
}

/**
 * What an address counts as for the budgets of failures and sign-ins: an
 * IPv4 address (IPv4-mapped ones included) alone, an IPv6 address by its
 * /64, the block one subscriber or host is usually given, so that moving
 * between its addresses gains no budget.
 */
export function clientBucket(address: string): string {
  const plain = address.startsWith("::ffff:") && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
  if (isIP(plain) !== 6) return plain;
  // a zone (fe80::1%eth0) names the host's interface, not part of the address
  const groups = expandIPv6(plain.split("%")[0]!.toLowerCase());
  return groups === null ? plain : `${groups.slice(0, 4).map((g) => g.toString(16)).join(":")}::/64`;
}

/**
 * The operations that read credentials, as express routes: the budget guards
 * exactly these (a route added must be listed; a test compares this list
 * with the OpenAPI document). Any other method or path, such as POST
 * /cancel or GET /schedule/x, is answered 404 as always, budget or not.
 */
export const CREDENTIAL_ROUTES: ReadonlyArray<readonly ["all" | "get" | "post" | "put" | "delete", string]> = [
  ["all", "/schedule"], // any method
  ["delete", "/cancel"],
  ["post", "/declare"],
  ["post", "/bulk"],
  ["get", "/tag-policies"],
  ["post", "/tag-policies"],
  ["put", "/tag-policies/:id"],
  ["delete", "/tag-policies/:id"],
  ["post", "/auth/login"],
  ["post", "/auth/logout"],
  ["get", "/triggers"],
  ["post", "/triggers"],
  ["get", "/triggers/:id"],
  ["put", "/triggers/:id"],
  ["delete", "/triggers/:id"],
  ["post", "/triggers/:id/replay"],
  ["post", "/triggers/:id/retry"],
  ["get", "/executions"],
  ["get", "/project"],
  ["get", "/stats"],
  ["get", "/overview"],
  ["post", "/dead-letters/replay"],
  ["post", "/dead-letters/discard"],
];

/** Whether a request carries credentials of its own (a key or an Authorization header). */
const carriesCredentials = (req: Request): boolean => req.headers["ttr-api-key"] !== undefined || req.headers.authorization !== undefined;

export class AuthFailureBudget {
  private readonly windows = new Map<string, Window>();

  /** `perMinute` 0 switches the budget off. */
  constructor(
    private readonly perMinute: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Seconds until the address may try again; 0 when it may now. */
  retryAfter(address: string): number {
    const bucket = clientBucket(address);
    const w = this.windows.get(bucket);
    if (w === undefined || w.failures < this.perMinute) return 0;
    const left = w.startedAt + WINDOW_MS - this.now();
    if (left > 0) return Math.ceil(left / 1000);
    this.windows.delete(bucket);
    return 0;
  }

  /**
   * A failure from `address`; `viaLoopback`: whether the connection itself
   * came from this host. Loopback goes uncounted only when both are: a
   * client cannot claim 127.0.0.1 in X-Forwarded-For to escape the budget
   * (with TRUST_PROXY=true every such header is believed).
   */
  failed(address: string, viaLoopback = isLoopback(address)): void {
    if (this.perMinute === 0 || (isLoopback(address) && viaLoopback)) return;
    const now = this.now();
    const bucket = clientBucket(address);
    let w = this.windows.get(bucket);
    if (w === undefined || now - w.startedAt >= WINDOW_MS) {
      if (this.windows.size >= TIDY_AT) this.tidy(now);
      w = { startedAt: now, failures: 0 };
      this.windows.set(bucket, w);
    }
    w.failures++;
  }

  private tidy(now: number): void {
    for (const [address, w] of this.windows) if (now - w.startedAt >= WINDOW_MS) this.windows.delete(address);
  }

  /** Express middleware: 429 with Retry-After for a request with credentials from an address over its budget. */
  readonly gate = (req: Request, res: Response, next: NextFunction): void => {
    // a request from this host itself is never held back, whatever others claimed to be
    const local = isLoopback(req.ip ?? "") && isLoopback(req.socket.remoteAddress ?? "");
    const wait = this.perMinute === 0 || local || !carriesCredentials(req) ? 0 : this.retryAfter(req.ip ?? "");
    if (wait === 0) {
      next();
      return;
    }
    res.set("Retry-After", String(wait));
    next(new ApiError("TooManyRequests", "Too many failed authentications from this address, try again later"));
  };

  /** To call with each error answer: a 401 to a request that carried credentials counts against its address. */
  counted(req: Request, err: unknown): void {
    if (err instanceof ApiError && err.status === 401 && carriesCredentials(req)) this.failed(req.ip ?? "", isLoopback(req.socket.remoteAddress ?? ""));
  }
}
