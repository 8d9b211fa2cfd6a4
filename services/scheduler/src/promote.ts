// registered → queued for due triggers, oldest first, in batches; the next
// instance of each claimed recurring instance is created in the same
// transaction, so a recurring trigger is never left without one. Attempts
// of untagged triggers need no admission and go to the queue right after
// the commit.
import { promoteDue } from "@ttr/db";
import { type Deps, fenced } from "./deps.js";
import { enqueue } from "./dispatch.js";
import { planNextInstances } from "./recurring.js";

/**
 * Claims one batch of at most `limit`; returns how many triggers it claimed,
 * how many of their attempts wait for admission (tagged), and the enqueueing
 * of the untagged ones, left running so that the next batch can be claimed
 * meanwhile (a job lost to a failure here is enqueued again by QueueRecovery).
 */
export async function promoteBatch(deps: Deps, now: Date, limit: number): Promise<{ promoted: number; admissible: number; enqueued: Promise<void> }> {
  const { promoted, instances } = await fenced(deps, async (tx) => {
    const promoted = await promoteDue(tx, now, limit);
    const generatorIds = promoted.flatMap((p) => (p.generatorId ? [p.generatorId] : []));
    const instances = await planNextInstances(tx, generatorIds, now, deps.log);
    return { promoted, instances };
  });
  const ready = promoted.filter((p) => p.dispatched);
  const enqueued = enqueue(deps, ready).then(
    () => void deps.metrics.dispatched.inc(ready.length),
    (err: Error) => {
      deps.recovery.request("an enqueue failed");
      deps.log.warn("enqueueing promoted attempts failed; they are enqueued again at the next tick", { error: err.message, count: ready.length });
    },
  );
  deps.metrics.promoted.inc(promoted.length);
  deps.metrics.instances.inc(instances);
  return { promoted: promoted.length, admissible: promoted.length - ready.length, enqueued };
}
