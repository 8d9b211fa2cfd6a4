// Projects' webhook signing secrets (docs/delivery-extras.md). They are
// stored sealed (core's seal.ts, AES-256-GCM under TTR_SECRET_KEY); this
// module opens and seals them with the keys its caller passes in, and
// never sees a key from the environment itself.
import { newSigningSecret, PREVIOUS_SECRET_SIGNS_HOURS, type SecretKeys, seal, sealedKeyId, unseal } from "@ttr/core";
import type { Db } from "./client.js";
import { execute, query, queryOne, type SqlRunner } from "./sql.js";

/** Bound into each sealed secret, so that it opens only as this project's. */
const context = (projectId: string) => `signing-secret:${projectId}`;

export interface SigningSecrets {
  /** the newest secret, `whsec_…` */
  secret: string;
  /** the one the last rotation replaced, while it still signs; else null */
  previous: string | null;
}

/** The project's signing secrets in clear, or null when it has none. Throws SealError when they do not open. */
export async function signingSecrets(db: SqlRunner, keys: SecretKeys, projectId: string): Promise<SigningSecrets | null> {
  const row = await queryOne<{ secret: string; previousSecret: string | null }>(db, "signing_secret_get", projectId);
  if (!row) return null;
  const open = (sealed: string) => unseal(keys, sealed, context(projectId));
  return { secret: open(row.secret), previous: row.previousSecret === null ? null : open(row.previousSecret) };
}

/** Whether the project has a signing secret (no key needed). */
export async function hasSigningSecret(db: SqlRunner, projectId: string): Promise<boolean> {
  return (await queryOne(db, "signing_secret_get", projectId)) !== undefined;
}

/** The project's secrets, a first one created if it had none. */
export async function ensureSigningSecret(db: SqlRunner, keys: SecretKeys, projectId: string): Promise<SigningSecrets> {
  const existing = await signingSecrets(db, keys, projectId);
  if (existing) return existing;
  await query(db, "signing_secret_create", projectId, seal(keys, newSigningSecret(), context(projectId)));
  // read back: a racing creation may have won
  return (await signingSecrets(db, keys, projectId))!;
}

/**
 * A new secret for the project; the current one keeps signing beside it
 * for PREVIOUS_SECRET_SIGNS_HOURS or until the next rotation. A project
 * without a secret gets its first one, with no previous.
 */
export async function rotateSigningSecret(db: Db, keys: SecretKeys, projectId: string): Promise<SigningSecrets> {
  const secret = newSigningSecret();
  const sealed = seal(keys, secret, context(projectId));
  return db.$transaction(async (tx) => {
    const rotated = await queryOne<{ previousSecret: string }>(tx, "signing_secret_rotate", projectId, sealed, PREVIOUS_SECRET_SIGNS_HOURS);
    if (rotated) return { secret, previous: unseal(keys, rotated.previousSecret, context(projectId)) };
    const created = await queryOne(tx, "signing_secret_create", projectId, sealed);
    if (!created) throw new Error("signing secret created meanwhile: try again");
    return { secret, previous: null };
  });
}

/** Whether any project has a signing secret: then a process that signs needs TTR_SECRET_KEY. */
export async function anySigningSecret(db: SqlRunner): Promise<boolean> {
  return (await queryOne(db, "signing_secret_any")) !== undefined;
}

/**
 * Seals every signing secret under `keys.current` that another key sealed
 * (after TTR_SECRET_KEY changed, with the old one as the previous key).
 * Answers how many projects' secrets were re-sealed.
 */
export async function resealSigningSecrets(db: Db, keys: SecretKeys): Promise<number> {
  return db.$transaction(async (tx) => {
    const rows = await query<{ projectId: string; secret: string; previousSecret: string | null }>(tx, "signing_secret_all");
    let resealed = 0;
    for (const row of rows) {
      const stale = [row.secret, row.previousSecret].some((s) => s !== null && sealedKeyId(s) !== keys.current.id);
      if (!stale) continue;
      const again = (sealed: string) => seal(keys, unseal(keys, sealed, context(row.projectId)), context(row.projectId));
      resealed += await execute(tx, "signing_secret_reseal", row.projectId, again(row.secret), row.previousSecret === null ? null : again(row.previousSecret));
    }
    return resealed;
  });
}
