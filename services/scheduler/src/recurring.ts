// Exactly one pending instance ahead of every active recurring trigger
// (docs/concepts.md).
import { createInstancesAfter, generatorsWithoutPending, type SqlRunner } from "@ttr/db";
import type { Logger } from "@ttr/platform";
import { type Deps, fenced } from "./deps.js";

/** After instances were claimed: create each generator's next one, in the claim's transaction. */
export function planNextInstances(tx: SqlRunner, generatorIds: string[], now: Date, log: Logger): Promise<number> {
  // A recurring trigger an api call holds is left to it (lock_free_active_generators.sql).
  const onCronError = (generatorId: string, err: Error) => log.error("cannot compute the next run", { generatorId, error: err.message });
  return createInstancesAfter(tx, generatorIds, now, onCronError, true);
}

/** Sweep: active recurring triggers with no pending instance get one (after an interruption, say); returns how many. */
export async function ensurePendingInstances(deps: Deps, now: Date): Promise<number> {
  const missing = await generatorsWithoutPending(deps.db, 1000);
  if (missing.length === 0) return 0;
  return fenced(deps, (tx) => planNextInstances(tx, missing.map((g) => g.id), now, deps.log));
}
