// The frame of the ad hoc window benches (detach-window.mjs, seed-gap.mjs):
// a fresh database with 300,000 rows of history and 50,000 pending, ttr
// started on it with its own retention off, a warm-up window of 300/s, then
// the bench's windows, a median summary per variant, and everything stopped
// and dropped at the end.
import { createDb, createProject } from "@ttr/db";
import { openBench } from "./infra.mjs";
import { seedLargeState } from "./large-state-seed.mjs";
import { startTtr } from "./services.mjs";
import { startSink } from "./sink.mjs";
import { benchProject, pool } from "./triggers.mjs";
import { fireWindow } from "./large-state-window.mjs";

/** A timestamped line on stdout. */
export const log = (m) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${m}`);

/**
 * Runs `body({database, db, env, projects, fire})` in the frame above;
 * `fire(spec)` runs one 300/s window from where the last one ended.
 * `fires` sizes the sink: how many requests all windows send at most.
 * `schedulerEnv` is added to the scheduler's environment.
 */
export async function windowBench(fires, body, schedulerEnv = {}) {
  const ctx = await openBench({ log: () => {} });
  const database = await ctx.database();
  const db = pool(database.url, 4);
  const sink = await startSink(fires + 300 * 8 + 5000);
  let sys;
  try {
    const { projectId } = await benchProject(database.url);
    const admin = createDb(database.url, { max: 1, applicationName: "ttr-bench" });
    const other = await createProject(admin, "history", 1_000_000_000).finally(() => admin.$disconnect());
    const projects = [projectId, other.projectId];
    await seedLargeState(database.url, { projects, pending: 50_000, history: 300_000, old: 0 });
    await db.query("CHECKPOINT");
    sys = await startTtr(database, ctx.redisUrl, { schedulerEnv: { TTR_RETENTION_DAYS: "0", ...schedulerEnv } });
    const env = { db, sys, sink, projectId, warmIds: { next: 10_000_000 } };
    let from = 0;
    const fire = async (spec) => {
      const w = await fireWindow(env, { rate: 300, warmupSeconds: 5, ...spec, from });
      from += 300 * spec.seconds;
      return w;
    };
    const w0 = await fire({ seconds: 8 });
    log(`warm window p99 ${w0.lateness.p99}`);
    await body({ database, db, env, projects, fire });
  } finally {
    await closeAll({ sys, sink, db, database, ctx });
  }
}

/** Stops a bench's services (if started) and sink, ends its pool, drops its database and closes the bench. */
export async function closeAll({ sys, sink, db, database, ctx }) {
  await sys?.stop();
  await sink.close();
  await db.end();
  await database.drop();
  await ctx.close();
}

/** Prints, per variant, the median spike and p99 of its windows ({spike, p99} each). */
export function summarize(results) {
  const median = (xs) => xs[Math.floor(xs.length / 2)];
  for (const [v, rows] of Object.entries(results)) {
    const sp = rows.map((x) => x.spike).sort((a, b) => a - b);
    const p = rows.map((x) => x.p99).sort((a, b) => a - b);
    log(`${v}: spike median ${median(sp)} (${sp.join(",")}); p99 median ${median(p)} (${p.join(",")})`);
  }
}
