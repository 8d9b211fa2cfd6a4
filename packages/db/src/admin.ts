// Projects, API keys and dashboard users: the admin CLI's writes (docs/cli.md)
// and the demo seed of `npm start`.
import { hashPassword, newApiKey, sealedKeyId, sha256Hex } from "@ttr/core";
import type { Db } from "./client.js";
import { query, type SqlRunner } from "./sql.js";

/** The largest monthly quota a project can hold (a PostgreSQL integer). */
export const MAX_MONTHLY_QUOTA = 2_147_483_647;

/**
 * TTR_DEFAULT_MONTHLY_QUOTA from `env`: the quota of a project created
 * without one (docs/configuration.md), 100000 when unset or empty. Anything
 * but a whole number from 0 to MAX_MONTHLY_QUOTA is refused, not read as
 * some other number.
 */
export function defaultMonthlyQuota(env: Record<string, string | undefined>): number {
  const raw = env.TTR_DEFAULT_MONTHLY_QUOTA?.trim() ?? "";
  if (raw === "") return 100_000;
  if (!/^\d+$/.test(raw) || Number(raw) > MAX_MONTHLY_QUOTA) {
    throw new Error(`Invalid configuration: TTR_DEFAULT_MONTHLY_QUOTA must be a whole number from 0 to ${MAX_MONTHLY_QUOTA}, not "${raw}"`);
  }
  return Number(raw);
}

export async function createProject(db: Db, name: string, monthlyQuota: number): Promise<{ projectId: string; apiKey: string }> {
  const apiKey = newApiKey();
  const project = await db.project.create({
    data: { name, monthlyQuota, apiKeys: { create: { keyHash: sha256Hex(apiKey) } } },
  });
  return { projectId: project.id, apiKey };
}

export async function setProjectQuota(db: Db, projectId: string, monthlyQuota: number): Promise<boolean> {
  const { count } = await db.project.updateMany({ where: { id: projectId }, data: { monthlyQuota } });
  return count === 1;
}

export async function createApiKey(db: Db, projectId: string): Promise<{ apiKeyId: string; apiKey: string }> {
  const apiKey = newApiKey();
  const row = await db.apiKey.create({ data: { projectId, keyHash: sha256Hex(apiKey) } });
  return { apiKeyId: row.id, apiKey };
}

/** Whether this call revoked the key: false when there is no such key, or it was revoked already. */
export async function revokeApiKey(db: Db, apiKeyId: string): Promise<boolean> {
  const { count } = await db.apiKey.updateMany({ where: { id: apiKeyId, revokedAt: null }, data: { revokedAt: new Date() } });
  return count === 1;
}

/** What an operator may see of an API key: never the key, nor its hash. */
export interface ApiKeyInfo {
  id: string;
  createdAt: Date;
  revokedAt: Date | null;
}

const KEY_INFO = { id: true, createdAt: true, revokedAt: true } as const;

/** A project's API keys, revoked ones too, oldest first. */
export async function listApiKeys(db: Db, projectId: string): Promise<ApiKeyInfo[]> {
  return db.apiKey.findMany({ where: { projectId }, select: KEY_INFO, orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
}

/** The API key with this id, or the one that is `apiKey` itself (found by its hash); null if none. */
export async function findApiKey(db: Db, by: { id: string } | { apiKey: string }): Promise<ApiKeyInfo | null> {
  const where = "id" in by ? { id: by.id } : { keyHash: sha256Hex(by.apiKey) };
  return db.apiKey.findUnique({ where, select: KEY_INFO });
}

/**
 * The ids of the keys that sealed the signing secrets stored now (the
 * current secrets, and the previous ones while they still sign), so that a
 * new secret is not sealed with a key the executors do not have.
 */
export async function signingSecretKeyIds(db: SqlRunner): Promise<string[]> {
  const rows = await query<{ sealed: string }>(db, "signing_secret_sealed");
  return [...new Set(rows.map((r) => sealedKeyId(r.sealed) ?? "unknown"))].sort();
}

export async function createUser(db: Db, projectId: string, email: string, password: string): Promise<{ userId: string }> {
  const user = await db.user.create({ data: { projectId, email: email.toLowerCase(), passwordHash: await hashPassword(password) } });
  return { userId: user.id };
}

/**
 * A new password for the user with `email`, and the end of every session
 * they have (whoever knew the old password is signed out). Null if there is
 * no such user.
 */
export async function setUserPassword(db: Db, email: string, password: string): Promise<{ userId: string; sessionsEnded: number } | null> {
  const passwordHash = await hashPassword(password);
  return db.$transaction(async (tx) => {
    const user = await tx.user.findUnique({ where: { email: email.toLowerCase() }, select: { id: true } });
    if (!user) return null;
    await tx.user.update({ where: { id: user.id }, data: { passwordHash } });
    const { count } = await tx.session.deleteMany({ where: { userId: user.id } });
    return { userId: user.id, sessionsEnded: count };
  });
}

/** Sets a user's password, creating the user if needed (used by the demo seed). */
export async function upsertUser(db: Db, projectId: string, email: string, password: string): Promise<{ userId: string }> {
  const passwordHash = await hashPassword(password);
  const user = await db.user.upsert({
    where: { email: email.toLowerCase() },
    create: { projectId, email: email.toLowerCase(), passwordHash },
    update: { passwordHash },
  });
  return { userId: user.id };
}
