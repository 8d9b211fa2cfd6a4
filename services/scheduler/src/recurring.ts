// Exactly one pending instance ahead of every active recurring trigger
// (docs/concepts.md).
import { nextRunAfterSkips } from "@ttr/core";
import { createNextInstances, generatorsWithoutPending, lockActiveGenerators, type GeneratorSchedule, type SqlRunner } from "@ttr/db";
import type { Logger } from "@ttr/platform";
import { type Deps, fenced } from "./deps.js";

/**
 * The next run strictly after `now`: after an interruption only the pending
 * instance fires late and the missed runs are skipped (docs/concepts.md, how
 * a trigger fires). A run cancelled on its own is not planned again.
 */
function nextRuns(generators: GeneratorSchedule[], now: Date, log: Logger) {
  const next: Array<{ generatorId: string; at: Date }> = [];
  for (const g of generators) {
    try {
      next.push({ generatorId: g.id, at: nextRunAfterSkips(g.cronExpr, g.tz, now, g.skipThrough) });
    } catch (err) {
      log.error("cannot compute the next run", { generatorId: g.id, error: (err as Error).message });
    }
  }
  return next;
}

/** After instances were claimed: create each generator's next one, in the claim's transaction. */
export async function planNextInstances(tx: SqlRunner, generatorIds: string[], now: Date, log: Logger): Promise<number> {
  if (generatorIds.length === 0) return 0;
  const generators = await lockActiveGenerators(tx, [...new Set(generatorIds)]);
  return createNextInstances(tx, nextRuns(generators, now, log));
}

/** Sweep: active recurring triggers with no pending instance get one (new /declare items, interruptions). */
export async function ensurePendingInstances(deps: Deps, now: Date): Promise<number> {
  const missing = await generatorsWithoutPending(deps.db, 1000);
  if (missing.length === 0) return 0;
  return fenced(deps, (tx) => planNextInstances(tx, missing.map((g) => g.id), now, deps.log));
}
