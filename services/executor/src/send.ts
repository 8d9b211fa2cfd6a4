// One HTTP attempt of a stored request: the timeout (docs/concepts.md,
// timeouts), what is kept of the response (docs/concepts.md, how an attempt
// is recorded) and the errorMessage of each failure (same section). The
// header lines that go on the wire are made in wire.ts, classification is
// in outcome.ts, address vetting and the agents in net-guard.ts.
//
// The request is written by our own `request` function with a raw header
// array: got's header object (which lowercases names and adds user-agent and
// accept-encoding) never reaches the wire, and Node adds nothing but a
// `Connection` header of its own (keep-alive; close when one is stored, or
// on a request sent again on a connection of its own).
import http, { type ClientRequest, type IncomingMessage } from "node:http";
import https from "node:https";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import got, { type Got, type HandlerFunction, type Method, type Options, type Request, type RequestFunction } from "got";
import { type AgentPair, agentsDestroyed, guardedAgents, openAgents, type Subnet } from "./net-guard.js";
import { type AttemptResult, errorMessages } from "./outcome.js";
import { type OutgoingRequest, wireHeaders } from "./wire.js";

export { destroyAgents, isBlockedAddress } from "./net-guard.js";
export { type AttemptResult, classify, type Outcome } from "./outcome.js";
export type { HeaderPairs, OutgoingRequest } from "./wire.js";

export interface SendOptions {
  timeoutSeconds: number;
  /** TTR_BLOCK_PRIVATE_NETWORKS: refuse loopback, private, link-local and other non-public addresses. */
  blockPrivateNetworks: boolean;
  /** TTR_ALLOW_NETWORKS: ranges let through that block. Default none. */
  allowNetworks?: readonly Subnet[];
  /**
   * How long past the timeout the body may keep arriving before the attempt
   * is given up as unrecordable, matching the reaper's grace (docs/concepts.md,
   * timeouts). Default 30.
   */
  reapGraceSeconds?: number;
  /** Abandons the attempt (process shutdown): the promise rejects with the signal's reason and nothing is to be recorded. */
  signal?: AbortSignal;
}

/** Bytes of the body that are kept and decoded (docs/concepts.md, how an attempt is recorded). */
const KEPT_BYTES = 10_240;
/** Body reading stops here, and responseSize says "10 MB or more" (docs/concepts.md, timeouts). */
const MAX_BODY_BYTES = 10_485_760;
/** After the timeout the body may keep arriving this long before the reaper may close the attempt (docs/concepts.md, timeouts). */
const DEFAULT_REAP_GRACE_SECONDS = 30;
/**
 * Response status line and headers may take this much. Node's default of
 * 16 KiB would turn a 2xx with a long Set-Cookie into a Transport error, and
 * a retry would send the request again; 256 KiB is what browsers accept.
 * Beyond it the answer is a Transport error (docs/concepts.md).
 */
const MAX_RESPONSE_HEADER_BYTES = 262_144;

/** Non-fatal and keeping a leading BOM: invalid bytes and a character cut at 10,240 become U+FFFD. */
const utf8 = new TextDecoder("utf-8", { ignoreBOM: true });

type NativeOptions = ReturnType<Options["createNativeRequestOptions"]>;

/**
 * got builds Node's request options for every request: an object of about
 * 40 fields copied from its own, which V8 makes slowly (about 60 µs a
 * request on a slow 2-core machine, 8 % of the executor's CPU in a profile
 * at 1,000 fires/s). rawRequest never reads them, so this client's requests
 * skip that step. got passes the object only to the request function, and
 * to its cache, which this client does not use.
 */
const skipNativeOptions: HandlerFunction = (options, next) => {
  options.createNativeRequestOptions = () => ({}) as NativeOptions;
  return next(options);
};

// The agent is picked by rawRequest, below.
const client: Got = got.extend({
  http2: false,
  decompress: false, // bodies are recorded as received (docs/concepts.md, how an attempt is recorded)
  followRedirect: false, // a 3xx is an HTTP failure; its Location is never requested
  throwHttpErrors: false,
  retry: { limit: 0 }, // retries are the scheduler's, per tag policy
  handlers: [skipNativeOptions],
});

/**
 * Sends exactly the given method and header lines. got's native options are
 * not passed on: they carry its headers, and every other field is a default
 * (copying the ~40 of them cost more CPU than the rest of the attempt).
 * `onRequest` gets Node's request (to tell whether it went out on a pooled
 * connection); `singleUse` sends it on a connection of its own.
 */
function rawRequest(
  method: string,
  headers: string[],
  agents: AgentPair,
  singleUse: boolean,
  onRequest: (request: ClientRequest) => void,
  onHandOver: (response: IncomingMessage) => void,
): RequestFunction {
  return (url, _gotOptions, callback) => {
    const options = { method, headers, maxHeaderSize: MAX_RESPONSE_HEADER_BYTES };
    const pair = singleUse ? agents.singleUse : agents;
    const request =
      url.protocol === "https:"
        ? https.request(url, { ...options, agent: pair.https }, callback)
        : http.request(url, { ...options, agent: pair.http }, callback);
    onRequest(request);
    // A 101 answer, or a 2xx to a CONNECT, hands the connection over: Node
    // emits it here, not as a response, and got would wait for one until
    // the timeout. It is the target's answer (with no body); the
    // connection is closed.
    const handOver = (response: IncomingMessage, socket: Duplex) => {
      socket.destroy();
      onHandOver(response);
    };
    request.on("upgrade", handOver);
    request.on("connect", handOver);
    // Node keeps about the first 1,000 header lines of an answer and drops
    // the rest without a word; MAX_RESPONSE_HEADER_BYTES bounds them instead.
    request.maxHeadersCount = 0;
    return request;
  };
}

/**
 * A target may close an idle keep-alive connection just as a request is
 * written to it; the request then fails with a reset or a broken pipe before
 * any answer. Browsers and curl send such a request again on a new
 * connection, and so does ttr, once (a request may arrive twice, per the
 * delivery promise in docs/concepts.md), when all of this holds: the
 * connection was a pooled one; it broke with a reset or a broken pipe; not
 * one byte of an answer came on it; the request's last byte went out at most
 * RESEND_WITHIN_MS before (a target that read the request and then failed
 * is not sent it twice by this); and the agents were not closed meanwhile
 * (an executor stopping: an attempt it cuts off is never sent again).
 */
const RESEND_WITHIN_MS = 1000;

// What decides whether a request may be sent again, kept on Node's request
// itself by listeners that are plain functions (`this` is the request): a
// closure and an object per attempt cost the send path measurably.
const READ_BEFORE = Symbol("bytes the connection had read when the request got it");
const WRITTEN_AT = Symbol("when the request's last byte was written");
const DESTROYED_BEFORE = Symbol("agentsDestroyed() when the request began");
type Tracked = ClientRequest & { [READ_BEFORE]?: number; [WRITTEN_AT]?: number; [DESTROYED_BEFORE]: number };

function gotSocket(this: Tracked, socket: Socket): void {
  this[READ_BEFORE] = socket.bytesRead;
}

function written(this: Tracked): void {
  this[WRITTEN_AT] = Date.now();
}

function tracked(request: ClientRequest): Tracked {
  const t = request as Tracked;
  t[DESTROYED_BEFORE] = agentsDestroyed();
  t.on("socket", gotSocket);
  t.on("finish", written);
  return t;
}

function diedWhilePooled(request: Tracked | undefined, err: Error): boolean {
  if (request === undefined || request.reusedSocket !== true) return false;
  const code = (err as NodeJS.ErrnoException).code;
  if (code !== "ECONNRESET" && code !== "EPIPE") return false;
  // a byte of an answer came: the target had read the request
  if (request.socket === null || request.socket.bytesRead !== request[READ_BEFORE]) return false;
  const writtenAt = request[WRITTEN_AT];
  if (writtenAt !== undefined && Date.now() - writtenAt > RESEND_WITHIN_MS) return false;
  return agentsDestroyed() === request[DESTROYED_BEFORE];
}

/** Lowercase names, repeated headers joined with `, ` (docs/concepts.md), from the raw lines. */
function responseHeaders(raw: string[]): Record<string, string> {
  const joined = new Map<string, string>();
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    const previous = joined.get(name);
    joined.set(name, previous === undefined ? raw[i + 1]! : `${previous}, ${raw[i + 1]}`);
  }
  // fromEntries defines own properties, so even a `__proto__` header is kept.
  return Object.fromEntries(joined);
}

function networkFailure(errorMessage: string, cause: string, timedOut = false): AttemptResult {
  return { kind: "network", errorMessage, timedOut, cause };
}


/**
 * Sends one attempt and reads its response. Resolves with every outcome,
 * failures included; rejects only when `opts.signal` aborts.
 */
export function sendAttempt(req: OutgoingRequest, opts: SendOptions): Promise<AttemptResult> {
  if (opts.signal?.aborted) return Promise.reject(opts.signal.reason);
  let url: URL;
  try {
    url = new URL(req.url);
  } catch {
    // Only items can hold a URL that does not parse (docs/concepts.md).
    const message = req.source === "item" ? errorMessages.invalidUrl : errorMessages.transport;
    return Promise.resolve(networkFailure(message(req.method, req.url), "the URL does not parse"));
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return Promise.resolve(networkFailure(errorMessages.transport(req.method, req.url), `the URL's scheme ${url.protocol} is not http or https`));
  }
  // Node would send an empty method as GET; what is stored (an item's `""`) is what goes out, or nothing does.
  if (req.method === "") return Promise.resolve(networkFailure(errorMessages.transport(req.method, req.url), "the method is empty"));
  const headers = wireHeaders(req, url);
  if (typeof headers === "string") return Promise.resolve(networkFailure(errorMessages.transport(req.method, req.url), headers));
  return new Promise((resolve, reject) => attempt(req, url, headers, opts, resolve, reject));
}

function attempt(
  req: OutgoingRequest,
  url: URL,
  headers: string[],
  opts: SendOptions,
  resolve: (result: AttemptResult) => void,
  reject: (reason: unknown) => void,
): void {
  const method = req.method;
  const { timeoutSeconds, signal } = opts;
  const startedAt = Date.now();
  let settled = false;
  let status = 0; // 0 until the status line and headers arrived
  let headersSeen: Record<string, string> = {};
  /** Node's response, once status and headers arrived: got reads the body from it as it is consumed */
  let message: IncomingMessage | undefined;
  let size = 0;
  let kept = 0;
  const keptChunks: Buffer[] = [];

  const agents = opts.blockPrivateNetworks ? guardedAgents(opts.allowNetworks) : openAgents;
  const handedOver = (response: IncomingMessage) => {
    settle({ kind: "response", status: response.statusCode ?? 101, headers: responseHeaders(response.rawHeaders), body: "", size: 0 });
    stream.destroy();
  };
  // Node's request under the current stream; a resend replaces both.
  let sent: Tracked | undefined;
  let stream = open(false);

  // One deadline covers connecting, sending and waiting for status and
  // headers, not the body (docs/concepts.md, timeouts), a resend included.
  // A timer that destroys the stream does what an AbortController would,
  // with nothing to allocate.
  let timer = setTimeout(() => {
    settle(networkFailure(errorMessages.timeout(timeoutSeconds), "timed out", true));
    stream.destroy();
  }, timeoutSeconds * 1000);

  const onAbort = () => {
    settle(signal?.reason ?? new Error("attempt aborted"), true);
    stream.destroy();
  };
  signal?.addEventListener("abort", onAbort, { once: true });

  function settle(result: unknown, rejected = false): void {
    if (settled) return;
    settled = true;
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
    if (rejected) reject(result);
    else resolve(result as AttemptResult);
  }

  /** `cause`: what broke, for the executor's log (the stored message does not say). */
  function failure(cause: string): AttemptResult {
    // Before status and headers: no response at all. After: the body broke,
    // even under a 2xx status (docs/concepts.md: a network failure).
    return networkFailure(
      status === 0 ? errorMessages.transport(method, req.url) : errorMessages.decode(status, method, req.url),
      cause,
    );
  }

  function recorded(): AttemptResult {
    const first = keptChunks.length === 1 ? keptChunks[0]! : Buffer.concat(keptChunks, kept);
    return { kind: "response", status, headers: headersSeen, body: utf8.decode(first), size };
  }

  /** Sends the request: on a pooled connection, or (`singleUse`) on one of its own. */
  function open(singleUse: boolean): Request {
    // got only uses the method for its own bookkeeping; rawRequest sends it verbatim.
    const onRequest = (r: ClientRequest) => (sent = tracked(r));
    const s = client.stream(url, { method: method as Method, request: rawRequest(method, headers, agents, singleUse, onRequest, handedOver) });
    // Events of a stream given up for a resend are ignored.
    const current = () => s === stream && !settled;

    s.on("response", (response: IncomingMessage) => {
      if (!current()) return;
      message = response;
      clearTimeout(timer);
      status = response.statusCode ?? 0;
      headersSeen = responseHeaders(response.rawHeaders);
      // A body still arriving when the reaper may close the attempt is dropped:
      // the attempt is then left to the reaper like any unrecordable response.
      const reapAt = startedAt + (timeoutSeconds + (opts.reapGraceSeconds ?? DEFAULT_REAP_GRACE_SECONDS)) * 1000;
      timer = setTimeout(() => {
        settle({ kind: "unrecordable", status });
        stream.destroy();
      }, reapAt - Date.now());
    });
    s.on("data", (chunk: Buffer) => current() && onChunk(chunk));
    s.on("end", () => current() && settle(recorded()));
    // Node's and got's messages name the address and what failed (refused,
    // DNS, TLS, "is not a public address"), never the URL's credentials.
    s.on("error", (err: Error) => {
      if (!current()) return;
      // An error after the whole answer was parsed: bytes past its framing in
      // the same packet (a Content-Length counted in characters, say) fail to
      // parse as a next answer. The answer is complete, not broken: it is
      // recorded, with the part of its body got had not read yet, which waits
      // in Node's response.
      if (message?.complete === true) {
        for (let chunk = message.read() as Buffer | null; chunk !== null && !settled; chunk = message.read() as Buffer | null) onChunk(chunk);
        settle(recorded());
        return;
      }
      if (status === 0 && !singleUse && diedWhilePooled(sent, err)) {
        stream = open(true);
        return;
      }
      settle(failure(err.message.trim()));
    });
    // Destroyed without an error and without reaching the end: same as an error.
    s.on("close", () => current() && settle(failure("connection closed")));

    // got writes the body into the request and ends it; Content-Length is
    // already in the header lines, so it goes out as-is, for GET too.
    s.end(req.body && req.body.byteLength > 0 ? req.body : undefined);
    return s;
  }

  function onChunk(chunk: Buffer): void {
    if (settled) return;
    size += chunk.length;
    if (kept < KEPT_BYTES) {
      const part = chunk.length <= KEPT_BYTES - kept ? chunk : chunk.subarray(0, KEPT_BYTES - kept);
      // A zero byte means the response cannot be recorded (docs/concepts.md,
      // how an attempt is recorded). Nothing more of it is needed, so the connection is
      // dropped rather than drained.
      if (part.indexOf(0) !== -1) {
        settle({ kind: "unrecordable", status });
        stream.destroy();
        return;
      }
      keptChunks.push(part);
      kept += part.length;
    }
    if (size >= MAX_BODY_BYTES) {
      // The last chunk may overshoot the cap; responseSize never does.
      size = MAX_BODY_BYTES;
      settle(recorded());
      stream.destroy();
    }
  }
}
