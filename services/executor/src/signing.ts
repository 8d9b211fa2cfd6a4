// Signing of attempts whose tag policy has `signing` on (docs/delivery-extras.md):
// the Standard Webhooks headers, keyed by the project's signing secrets,
// opened with TTR_SECRET_KEY. What cannot be signed is not sent: the
// attempt fails with a `Signing failed` message instead.
import { type SecretKeys, secretKeys, webhookHeaders } from "@ttr/core";
import { anySigningSecret, ensureSigningSecret, type PgRunner } from "@ttr/db";
import type { ExecutorEnv } from "./env.js";

export type Signer = (projectId: string, id: string, body: Uint8Array | null) => Promise<Array<[string, string]>>;

export class SigningFailed extends Error {
  readonly _tag = "SigningFailed";
}

/** The keys from the environment; null when TTR_SECRET_KEY is not set. */
export function keysOf(env: ExecutorEnv): SecretKeys | null {
  return env.TTR_SECRET_KEY ? secretKeys(env.TTR_SECRET_KEY, env.TTR_SECRET_KEY_PREVIOUS) : null;
}

/**
 * Why this executor may not start, or null: once any project has a signing
 * secret, signing needs the key, and a missing key is found at start-up
 * rather than at the first signed attempt.
 */
export async function refuseToStart(db: PgRunner, keys: SecretKeys | null): Promise<string | null> {
  if (keys !== null || !(await anySigningSecret(db))) return null;
  return "TTR_SECRET_KEY is not set, and projects have signing secrets sealed with it: refusing to start rather than send their deliveries unsigned";
}

/**
 * Signs with the project's secrets, newest first (two during a rotation),
 * making the project's first secret if it has none yet. Throws
 * SigningFailed when it cannot.
 */
export function signer(db: PgRunner, keys: SecretKeys | null, now: () => number = Date.now): Signer {
  return async (projectId, id, body) => {
    if (keys === null) throw new SigningFailed("TTR_SECRET_KEY is not set on this executor");
    let secrets: { secret: string; previous: string | null };
    try {
      secrets = await ensureSigningSecret(db, keys, projectId);
    } catch (err) {
      if ((err as { _tag?: string })._tag === "SealError") throw new SigningFailed((err as Error).message);
      throw err;
    }
    const all = secrets.previous === null ? [secrets.secret] : [secrets.secret, secrets.previous];
    return webhookHeaders(all, id, Math.floor(now() / 1000), body);
  };
}
