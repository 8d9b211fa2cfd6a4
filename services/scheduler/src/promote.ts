// registered → queued for due triggers, oldest first, in batches; the next
// instance of each claimed recurring instance is created in the same
// transaction, so a recurring trigger is never left without one. Attempts
// of untagged triggers need no admission and go to the queue right after
// the commit.
import { promoteDue } from "@ttr/db";
import type { Deps } from "./deps.js";
import { enqueue } from "./dispatch.js";
import { planNextInstances } from "./recurring.js";

/** Claims one batch; returns how many triggers it claimed. */
export async function promoteBatch(deps: Deps, now: Date): Promise<number> {
  const { promoted, instances } = await deps.db.$transaction(async (tx) => {
    const promoted = await promoteDue(tx, now, deps.env.SCHEDULER_BATCH_SIZE);
    const generatorIds = promoted.flatMap((p) => (p.generatorId ? [p.generatorId] : []));
    const instances = await planNextInstances(tx, generatorIds, now, deps.log);
    return { promoted, instances };
  });
  const ready = promoted.filter((p) => p.dispatched).map((p) => p.executionId);
  await enqueue(deps, ready);
  deps.metrics.dispatched.inc(ready.length);
  deps.metrics.promoted.inc(promoted.length);
  deps.metrics.instances.inc(instances);
  return promoted.length;
}
