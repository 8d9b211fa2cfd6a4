// The dashboard's reads over the day-partitioned tables, run once for a
// project that does not exist, so that a connection of the api's reads pool
// has their kept plans made before a user's read needs them. After day
// partitions were added or detached, the trigger list's first call on each
// connection took 137–153 ms on 72 days, against 15–21 ms once planned
// (docs/storage.md, "Kept plans and connections").
import * as d from "./dashboard.js";
import { projectOverview } from "./overview.js";
import type { SqlRunner } from "./sql.js";

const NONE = "00000000-0000-0000-0000-000000000000";

export async function planDashboardReads(db: SqlRunner, now = new Date()): Promise<void> {
  const all: d.TriggerListFilter = { jobs: { status: null }, generators: { status: null }, tag: null, customKey: null, generatorId: null };
  await d.listTriggerKeys(db, NONE, all, null, 1);
  await d.listTriggerKeys(db, NONE, { ...all, generators: null, generatorId: NONE }, null, 1);
  await d.loadTriggers(db, NONE, [NONE]);
  await d.triggerExecutions(db, NONE, NONE);
  await d.listExecutions(db, NONE, { triggerId: null, deadLetterOnly: false }, null, 1);
  await projectOverview(db, NONE, now, 60);
}
