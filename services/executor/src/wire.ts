// What goes on the wire for one attempt (docs/concepts.md, what the target
// receives): the header lines, flat and in order, written as they are by
// send.ts's own request function. With a raw array Node adds no Host and
// computes no Content-Length, so both are written here.
import { randomFillSync } from "node:crypto";

export type HeaderPairs = Array<[string, string]>;

export interface OutgoingRequest {
  method: string;
  /** As stored; error messages quote it unchanged. */
  url: string;
  headers: HeaderPairs;
  body: Uint8Array | null;
  /** `schedule`: a /schedule trigger; `item`: a /declare or /bulk item (different header rules). */
  source: "schedule" | "item";
  /**
   * Headers of ttr's own, sent after the stored ones, which lose any line
   * of the same name (the webhook signature headers of a signing policy).
   * Names in lowercase.
   */
  extraHeaders?: HeaderPairs;
}


/** Methods that get no `Content-Length: 0` when the trigger has no body. */
const BODYLESS_METHODS = new Set(["GET", "HEAD", "OPTIONS", "DELETE", "TRACE"]);

// Tracing headers are new on every attempt (docs/concepts.md). Random bytes are
// drawn in blocks: one randomFillSync per 256 attempts instead of one each.
const TRACE_BYTES = 24;
const randomPool = Buffer.allocUnsafe(TRACE_BYTES * 256);
let randomOffset = randomPool.length;
const ZERO_TRACE_ID = "0".repeat(32);
const ZERO_SPAN_ID = "0".repeat(16);

function newTraceIds(): { traceId: string; spanId: string } {
  for (;;) {
    if (randomOffset + TRACE_BYTES > randomPool.length) {
      randomFillSync(randomPool);
      randomOffset = 0;
    }
    const at = randomOffset;
    randomOffset += TRACE_BYTES;
    const traceId = randomPool.toString("hex", at, at + 16);
    const spanId = randomPool.toString("hex", at + 16, at + TRACE_BYTES);
    // W3C Trace Context forbids all-zero ids.
    if (traceId !== ZERO_TRACE_ID && spanId !== ZERO_SPAN_ID) return { traceId, spanId };
  }
}

/**
 * The header lines of one attempt, flat (name, value, name, value…) in wire
 * order: Host first, then the stored headers, then traceparent and b3 (any
 * stored ones are replaced), then ttr's extra headers if any (likewise),
 * then Content-Length. When an item's headers make the attempt a Transport
 * error (docs/concepts.md, what the target receives): why, in words.
 */
export function wireHeaders(req: OutgoingRequest, url: URL): string[] | string {
  const item = req.source === "item";
  // Items: names in lowercase, and a `host` header replaces the URL's host.
  // /schedule triggers: names keep their case, order and repeats.
  const lines: string[] = [item ? "host" : "Host", url.host];
  let connection = false;
  let authorization = false;
  const extra = req.extraHeaders;
  for (const [name, value] of req.headers) {
    const lower = name.toLowerCase();
    if (lower === "authorization") authorization = true;
    if (extra?.some(([n]) => n === lower)) continue;
    switch (lower) {
      case "host":
        if (item) lines[1] = value;
        continue;
      case "content-length": // computed from the body below
      case "traceparent":
      case "b3":
        continue;
      case "transfer-encoding":
        if (item) return refusedItemHeader(name, value);
        continue; // framing is ours (never stored for /schedule triggers anyway)
      case "keep-alive":
      case "upgrade":
        if (item) return refusedItemHeader(name, value);
        break;
      case "connection":
        if (item && !isPlainConnectionValue(value)) return refusedItemHeader(name, value);
        connection = true;
        break;
    }
    lines.push(item ? lower : name, value);
  }
  // Credentials in the URL go out as Basic authorization, as curl and
  // browsers send them, unless the request has its own Authorization.
  if ((url.username !== "" || url.password !== "") && !authorization) {
    const credentials = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
    lines.push(item ? "authorization" : "Authorization", `Basic ${Buffer.from(credentials, "utf8").toString("base64")}`);
  }
  const { traceId, spanId } = newTraceIds();
  lines.push("traceparent", `00-${traceId}-${spanId}-01`, "b3", `${traceId}-${spanId}-1`);
  if (extra !== undefined) for (const [name, value] of extra) lines.push(name, value);
  // An empty body counts as none: GET and friends then get no Content-Length.
  const length = req.body?.byteLength ?? 0;
  if (length > 0 || !BODYLESS_METHODS.has(req.method.toUpperCase())) {
    lines.push(item ? "content-length" : "Content-Length", String(length));
  }
  // Node adds "Connection: keep-alive" when no line has it; for an item the
  // name goes out in lowercase like all of its names.
  if (item && !connection) lines.push("connection", "keep-alive");
  return lines;
}

function refusedItemHeader(name: string, value: string): string {
  return `an item may not send the header ${name}: ${value}`;
}

function isPlainConnectionValue(value: string): boolean {
  const v = value.trim().toLowerCase();
  return v === "close" || v === "keep-alive";
}

