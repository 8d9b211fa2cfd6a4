// API keys, session tokens and passwords (docs/cli.md). Keys and tokens are
// 256-bit random values, so a plain SHA-256 is a safe and fast lookup hash;
// passwords are low-entropy and get salted scrypt.
import { createHash, randomBytes, scrypt, timingSafeEqual } from "node:crypto";

export const API_KEY_PREFIX = "ttr_";

export function newApiKey(): string {
  return API_KEY_PREFIX + randomBytes(32).toString("base64url");
}

export function newSessionToken(): string {
  return randomBytes(32).toString("base64url");
}

export function sha256Hex(value: string): string {
  return createHash("sha256").update(value, "utf8").digest("hex");
}

/**
 * One of the scrypt settings OWASP's password storage guidance lists as its
 * minimum (N=2^17 r=8 p=1, or the same work as 2^16/8/2, 2^15/8/3, 2^14/8/5,
 * 2^13/8/10): this one needs 16 MiB per hash rather than 128 MiB, so
 * concurrent sign-ins cannot exhaust the api's memory. About 125 ms of CPU
 * per hash on the development machine (N=2^14 p=1, used until 2026-11-25,
 * took 31 ms). Hashes made with other settings still verify, and are
 * replaced at the user's next sign-in (passwordNeedsRehash).
 */
const SCRYPT = { N: 16384, r: 8, p: 5, keyLen: 32 } as const;

function scryptAsync(password: string, salt: Buffer, N: number, r: number, p: number, keyLen: number): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password, salt, keyLen, { N, r, p, maxmem: 64 * 1024 * 1024 }, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

/**
 * The longest password a dashboard user may have, in characters: the CLI
 * sets none longer and sign-in compares none longer (it bounds the scrypt
 * work one sign-in can ask for).
 */
export const MAX_PASSWORD_LENGTH = 1024;

/** `scrypt$N$r$p$salt$hash`, base64url parts, so parameters can be raised later. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scryptAsync(password, salt, SCRYPT.N, SCRYPT.r, SCRYPT.p, SCRYPT.keyLen);
  return ["scrypt", SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString("base64url"), hash.toString("base64url")].join("$");
}

/** Whether a stored hash was made with other settings than today's (verify it first, then store a new one). */
export function passwordNeedsRehash(stored: string): boolean {
  const [scheme, n, r, p] = stored.split("$");
  return scheme !== "scrypt" || Number(n) !== SCRYPT.N || Number(r) !== SCRYPT.r || Number(p) !== SCRYPT.p;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split("$");
  if (scheme !== "scrypt" || !n || !r || !p || !salt || !hash) return false;
  const expected = Buffer.from(hash, "base64url");
  const actual = await scryptAsync(password, Buffer.from(salt, "base64url"), Number(n), Number(r), Number(p), expected.length);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
