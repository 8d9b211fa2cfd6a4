// verifyWebhook: checks that a delivery really comes from ttr, for targets
// whose tag policy has `signing` on (docs/delivery-extras.md). ttr signs
// after the Standard Webhooks scheme: `webhook-id`, `webhook-timestamp`
// (Unix seconds) and `webhook-signature`, a space-separated list of
// `v1,<base64 HMAC-SHA256>` over `<id>.<timestamp>.<raw body>`, keyed by the
// base64 part of the project's `whsec_` secret. During a secret rotation
// the list holds one entry per secret; any one matching is enough.
//
// WebCrypto only (crypto.subtle): runs in Node.js 20+, Deno, Bun, browsers
// and edge runtimes, with no dependencies. Pass the body exactly as it
// arrived (bytes or the undecoded text): a re-serialized JSON object will
// not match.

/** Why a delivery was refused. */
export type WebhookVerificationReason =
  | "missing_headers"
  | "invalid_timestamp"
  | "timestamp_too_old"
  | "timestamp_too_new"
  | "invalid_secret"
  | "no_matching_signature";

export class WebhookVerificationError extends Error {
  readonly _tag = "WebhookVerificationError";
  constructor(
    readonly reason: WebhookVerificationReason,
    message: string,
  ) {
    super(message);
    this.name = "WebhookVerificationError";
  }
}

/** A Fetch `Headers`, or a plain object as Node's `req.headers` (names in any case). */
export type WebhookHeaders = { get(name: string): string | null } | Record<string, string | string[] | undefined>;

export interface VerifyWebhookOptions {
  /** the project's secret, `whsec_…`; during your own switch-over, several */
  secret: string | readonly string[];
  headers: WebhookHeaders;
  /** the raw body as received */
  body: string | Uint8Array | ArrayBuffer;
  /** how far the timestamp may be from now, in seconds (default 300: replays of older deliveries are refused) */
  toleranceSeconds?: number | undefined;
  /** the current time in milliseconds (default Date.now()) */
  now?: number | undefined;
}

export interface VerifiedWebhook {
  /** `webhook-id`: ttr's execution ID, the same for no two attempts; use it to drop duplicates */
  id: string;
  /** `webhook-timestamp`, Unix seconds */
  timestamp: number;
}

const PREFIX = "whsec_";
const encoder = new TextEncoder();

function header(headers: WebhookHeaders, name: string): string | null {
  if (typeof (headers as { get?: unknown }).get === "function") return (headers as { get(name: string): string | null }).get(name);
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? (value[0] ?? null) : (value ?? null);
}

function base64Bytes(text: string): Uint8Array<ArrayBuffer> | null {
  try {
    const binary = atob(text);
    const out = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
    return out;
  } catch {
    return null;
  }
}

function bodyBytes(body: string | Uint8Array | ArrayBuffer): Uint8Array {
  if (typeof body === "string") return encoder.encode(body);
  return body instanceof Uint8Array ? body : new Uint8Array(body);
}

async function hmacKey(secret: string): Promise<CryptoKey> {
  const raw = secret.startsWith(PREFIX) ? base64Bytes(secret.slice(PREFIX.length)) : null;
  if (raw === null || raw.length === 0) throw new WebhookVerificationError("invalid_secret", "a signing secret is whsec_ followed by base64");
  return crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["verify"]);
}

/**
 * Resolves with the delivery's id and timestamp when one of its signatures
 * was made with one of `secret`; rejects with a WebhookVerificationError
 * otherwise. Signatures are compared by crypto.subtle.verify, in constant time.
 */
export async function verifyWebhook(opts: VerifyWebhookOptions): Promise<VerifiedWebhook> {
  const id = header(opts.headers, "webhook-id");
  const stamp = header(opts.headers, "webhook-timestamp");
  const signatures = header(opts.headers, "webhook-signature");
  if (!id || !stamp || !signatures) {
    throw new WebhookVerificationError("missing_headers", "webhook-id, webhook-timestamp and webhook-signature are required");
  }
  if (!/^\d{1,15}$/.test(stamp)) throw new WebhookVerificationError("invalid_timestamp", `webhook-timestamp is not Unix seconds: ${stamp}`);
  const timestamp = Number(stamp);
  const tolerance = opts.toleranceSeconds ?? 300;
  const now = Math.floor((opts.now ?? Date.now()) / 1000);
  if (timestamp < now - tolerance) throw new WebhookVerificationError("timestamp_too_old", "webhook-timestamp is too old");
  if (timestamp > now + tolerance) throw new WebhookVerificationError("timestamp_too_new", "webhook-timestamp is in the future");

  const body = bodyBytes(opts.body);
  const prefix = encoder.encode(`${id}.${stamp}.`);
  const signed = new Uint8Array(prefix.length + body.length);
  signed.set(prefix);
  signed.set(body, prefix.length);

  const candidates = signatures
    .split(" ")
    .filter((entry) => entry.startsWith("v1,"))
    .map((entry) => base64Bytes(entry.slice(3)))
    .filter((bytes): bytes is Uint8Array<ArrayBuffer> => bytes !== null);
  const secrets = typeof opts.secret === "string" ? [opts.secret] : opts.secret;
  for (const secret of secrets) {
    const key = await hmacKey(secret);
    for (const signature of candidates) {
      if (await crypto.subtle.verify("HMAC", key, signature, signed)) return { id, timestamp };
    }
  }
  throw new WebhookVerificationError("no_matching_signature", "no signature matches the secret");
}
