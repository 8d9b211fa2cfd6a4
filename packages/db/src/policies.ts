// Tag policies as stored (docs/api/tag-policies.md).
// Each function runs one named statement; the values were checked by core's
// checkPolicy before they get here.
import { type PolicySettings, policyExtras } from "@ttr/core";
import { isUniqueViolation } from "./client.js";
import { query, queryOne, type SqlRunner } from "./sql.js";

export interface PolicyRow extends PolicySettings {
  id: string;
  projectId: string;
  createdAt: Date;
  updatedAt: Date;
}

/** The statements' parameters after the row's identity, in their column order. */
function settingsParams(p: PolicySettings): unknown[] {
  const extras = policyExtras(p);
  return [
    p.throughput === null ? null : JSON.stringify(p.throughput),
    p.maxConcurrent,
    p.requestTimeoutSeconds,
    p.retryStrategy,
    p.retryInitialDelaySeconds,
    p.retryMaxDelaySeconds,
    p.retryMaxAttempts,
    p.retryJitter,
    p.retryOn,
    extras.signing,
    extras.honorRetryAfter,
    extras.notifyUrl,
    extras.paused,
  ];
}

/** Every policy of a project, newest first. */
export const listPolicies = (db: SqlRunner, projectId: string) => query<PolicyRow>(db, "policy_list", projectId);

/** Creates the tag's policy, or replaces the one it has (keeping id and createdAt). */
export async function upsertPolicy(db: SqlRunner, projectId: string, p: PolicySettings): Promise<PolicyRow> {
  return (await queryOne<PolicyRow>(db, "policy_upsert", projectId, p.tag, ...settingsParams(p)))!;
}

/** A project's policy by id, row-locked: call inside a transaction. */
export const lockPolicy = (tx: SqlRunner, projectId: string, id: string) => queryOne<PolicyRow>(tx, "policy_lock", projectId, id);

/**
 * Writes all of a policy's fields. `"tag-taken"` when a rename meets another
 * policy of the project with that tag: the statement failed, so inside a
 * transaction nothing more may run in it but the rollback.
 */
export async function updatePolicy(
  tx: SqlRunner,
  projectId: string,
  id: string,
  p: PolicySettings,
): Promise<PolicyRow | "tag-taken" | undefined> {
  try {
    return await queryOne<PolicyRow>(tx, "policy_update", projectId, id, p.tag, ...settingsParams(p));
  } catch (err) {
    if (isUniqueViolation(err)) return "tag-taken";
    throw err;
  }
}

/** Deletes a project's policy; false when it has none with this id. */
export async function deletePolicy(db: SqlRunner, projectId: string, id: string): Promise<boolean> {
  return (await query(db, "policy_delete", projectId, id)).length === 1;
}
