// Signing of deliveries after the Standard Webhooks scheme (see
// docs/delivery-extras.md): `webhook-id`, `webhook-timestamp` (Unix seconds)
// and `webhook-signature`, one space-separated `v1,<base64 HMAC-SHA256>` per
// signing secret, over `<id>.<timestamp>.<body bytes>`. The HMAC key is the
// base64 part of the `whsec_` secret, decoded.
import { createHmac, randomBytes } from "node:crypto";

export const SIGNING_SECRET_PREFIX = "whsec_";

/** How long a replaced signing secret keeps signing after a rotation. */
export const PREVIOUS_SECRET_SIGNS_HOURS = 24;

/** A new signing secret: `whsec_` and 32 random bytes in base64. */
export function newSigningSecret(): string {
  return SIGNING_SECRET_PREFIX + randomBytes(32).toString("base64");
}

function secretBytes(secret: string): Buffer {
  if (!secret.startsWith(SIGNING_SECRET_PREFIX)) throw new RangeError("a signing secret starts with whsec_");
  return Buffer.from(secret.slice(SIGNING_SECRET_PREFIX.length), "base64");
}

/** One `v1,<signature>` entry. */
export function signatureEntry(secret: string, id: string, timestamp: number, body: Uint8Array | null): string {
  const hmac = createHmac("sha256", secretBytes(secret)).update(`${id}.${timestamp}.`, "utf8");
  if (body && body.byteLength > 0) hmac.update(body);
  return `v1,${hmac.digest("base64")}`;
}

/**
 * The three headers as `[name, value]` pairs, signed by every secret in
 * `secrets` (newest first; two during a rotation).
 */
export function webhookHeaders(secrets: readonly string[], id: string, timestamp: number, body: Uint8Array | null): Array<[string, string]> {
  const signature = secrets.map((s) => signatureEntry(s, id, timestamp, body)).join(" ");
  return [
    ["webhook-id", id],
    ["webhook-timestamp", String(timestamp)],
    ["webhook-signature", signature],
  ];
}
