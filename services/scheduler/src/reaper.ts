// Lost attempts: started ones past their timeout plus grace are closed as
// Executor died (docs/concepts.md, lost attempts).
import { reapLost } from "@ttr/db";
import { markEnded } from "@ttr/platform";
import { type Deps, fenced } from "./deps.js";

export async function reap(deps: Deps, now: Date): Promise<number> {
  const closed = await fenced(deps, (tx) => reapLost(tx, now, 1000));
  for (const c of closed) {
    deps.log.warn("attempt closed as Executor died", { executionId: c.executionId, triggerId: c.triggerId });
    // docs/concepts.md, lost attempts: the slot is held until now.
    await markEnded(deps.redis, deps.env.TTR_REDIS_PREFIX, c.projectId, c.tags, c.executionId);
  }
  deps.metrics.reaped.inc(closed.length);
  return closed.length;
}
