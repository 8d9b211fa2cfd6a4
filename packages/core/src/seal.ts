// Secrets that ttr must read back (project signing secrets) are kept sealed:
// AES-256-GCM under a 32-byte key the operator gives as TTR_SECRET_KEY. A
// database dump, a backup or a replica then holds only ciphertext.
//
// Sealed text: `v1.<key id>.<iv>.<ciphertext>.<tag>`, base64url parts. The
// key id (the first 8 bytes of SHA-256 of the key, hex) says which key
// sealed it, so that during a key rotation values sealed with the previous
// key (TTR_SECRET_KEY_PREVIOUS) still open. `context` is bound in as
// additional authenticated data: a sealed value copied onto another project
// or into another column does not open. See docs/delivery-extras.md.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";

export interface SecretKey {
  /** 16 hex characters naming the key in sealed text; not secret */
  id: string;
  key: Buffer;
}

/** The keys a process may use: it seals with `current` and opens with either. */
export interface SecretKeys {
  current: SecretKey;
  previous: SecretKey | null;
}

/** A key could not be read, or a sealed value could not be opened. */
export class SealError extends Error {
  readonly _tag = "SealError";
}

const VERSION = "v1";
const IV_BYTES = 12;

/**
 * Reads a key as given in TTR_SECRET_KEY: 32 bytes as 64 hex characters or
 * as base64 (standard or URL-safe, padding optional).
 */
export function parseSecretKey(text: string): SecretKey {
  const trimmed = text.trim();
  let key: Buffer | null = null;
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) key = Buffer.from(trimmed, "hex");
  else if (/^[A-Za-z0-9+/_-]{43}=?$/.test(trimmed)) key = Buffer.from(trimmed.replaceAll("-", "+").replaceAll("_", "/"), "base64");
  if (key === null || key.length !== 32) {
    throw new SealError("a secret key is 32 bytes, written as 64 hex characters or 44 base64 characters (openssl rand -base64 32)");
  }
  return { id: createHash("sha256").update(key).digest("hex").slice(0, 16), key };
}

/** A new key in the form TTR_SECRET_KEY takes (base64). */
export function newSecretKeyText(): string {
  return randomBytes(32).toString("base64");
}

export function secretKeys(current: string, previous?: string | null): SecretKeys {
  return { current: parseSecretKey(current), previous: previous ? parseSecretKey(previous) : null };
}

export function seal(keys: SecretKeys, plaintext: string, context: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", keys.current.key, iv);
  cipher.setAAD(Buffer.from(context, "utf8"));
  const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  const b64 = (b: Buffer) => b.toString("base64url");
  return [VERSION, keys.current.id, b64(iv), b64(body), b64(cipher.getAuthTag())].join(".");
}

/** The id of the key that sealed `sealed`, or null when it is not sealed text. */
export function sealedKeyId(sealed: string): string | null {
  const parts = sealed.split(".");
  return parts.length === 5 && parts[0] === VERSION ? parts[1]! : null;
}

export function unseal(keys: SecretKeys, sealed: string, context: string): string {
  const [version, keyId, iv, body, tag, extra] = sealed.split(".");
  if (version !== VERSION || !keyId || iv === undefined || body === undefined || !tag || extra !== undefined) {
    throw new SealError("not a sealed secret");
  }
  const key = [keys.current, keys.previous].find((k) => k?.id === keyId);
  if (!key) throw new SealError(`sealed with key ${keyId}, which is neither TTR_SECRET_KEY nor TTR_SECRET_KEY_PREVIOUS`);
  try {
    const decipher = createDecipheriv("aes-256-gcm", key.key, Buffer.from(iv, "base64url"));
    decipher.setAAD(Buffer.from(context, "utf8"));
    decipher.setAuthTag(Buffer.from(tag, "base64url"));
    return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8");
  } catch {
    throw new SealError(`sealed secret did not open with key ${keyId} (tampered, or sealed for another record)`);
  }
}
