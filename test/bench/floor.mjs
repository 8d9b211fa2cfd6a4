// The floor of what a fired one-shot keeps and writes, by row layout: the
// measurements of storage.mjs (VACUUM every 2,000 fires, per fired
// one-shot: WAL, bytes kept, live data) for ttr's statements beside two
// layouts ttr does not have, fired with plain statements on the same schema:
// - once: the trigger is inserted and then updated once, to completed; its
//   execution is inserted once, complete (no queued, running, planned or
//   started versions, so nothing to recover a lost attempt from);
// - merged: as once, but the response is kept on the trigger row (columns
//   added for the run) and there is no execution row.
// What these give is the least any layout that keeps the request and the
// response can reach (test/bench/HISTORY.md, entry 75).
// Usage: node test/bench/floor.mjs [N] [current,once,merged]   (defaults 20000, all three)
import { openBench } from "./lib/infra.mjs";
import { insertTriggers } from "./lib/triggers.mjs";
import { RESPONSE_HEADERS, storage } from "./storage.mjs";

const n = Number(process.argv[2] ?? 20_000);
const names = (process.argv[3] ?? "current,once,merged").split(",");

/** Inserts the chunk's triggers, due a second ago, then ends them 100 at a time with `end(client, ids, day)`. */
const firing = (end) => async (client, projectId, { from, count }) => {
  const due = Math.floor(Date.now() / 1000) * 1000 - 1000;
  await insertTriggers(client, projectId, { from, count, sinkBase: "http://127.0.0.1:40000", dueAt: () => due, idBase: 1e9 });
  for (;;) {
    const rows = (await client.query("SELECT id, part_day FROM triggers WHERE status = 'registered' ORDER BY scheduled_at, id LIMIT 100")).rows;
    if (rows.length === 0) return;
    await end(client, rows.map((r) => r.id), rows[0].part_day);
  }
};

const layouts = {
  current: {},
  once: {
    fire: firing(async (client, ids, day) => {
      await client.query("UPDATE triggers SET status = 'completed', attempts = 1, updated_at = clock_timestamp() WHERE id = ANY($1::uuid[]) AND part_day = $2", [ids, day]);
      await client.query(
        `INSERT INTO executions (id, part_day, trigger_id, project_id, attempt_number, triggered_by, status, planned_at, started_at, completed_at, created_at, response_status, response_headers, response_body, response_size)
         SELECT ttr_uuidv7(), $2, t.id, t.project_id, 1, 'scheduler', 'complete', t.scheduled_at, clock_timestamp(), clock_timestamp(), clock_timestamp(), 200, $3::jsonb, 'ok', 2
         FROM triggers t WHERE t.id = ANY($1::uuid[]) AND t.part_day = $2`,
        [ids, day, RESPONSE_HEADERS],
      );
    }),
  },
  merged: {
    prepare: (client) =>
      client.query(
        "ALTER TABLE triggers ADD COLUMN r_status int, ADD COLUMN r_headers jsonb, ADD COLUMN r_body text, ADD COLUMN r_size int, ADD COLUMN r_started timestamptz, ADD COLUMN r_completed timestamptz",
      ),
    fire: firing((client, ids, day) =>
      client.query(
        `UPDATE triggers SET status = 'completed', attempts = 1, updated_at = clock_timestamp(), r_status = 200, r_headers = $3::jsonb, r_body = 'ok', r_size = 2,
                r_started = clock_timestamp(), r_completed = clock_timestamp()
         WHERE id = ANY($1::uuid[]) AND part_day = $2`,
        [ids, day, RESPONSE_HEADERS],
      ),
    ),
  },
};

const ctx = await openBench();
try {
  for (const name of names) {
    const r = await storage(ctx, n, 0, layouts[name]);
    const data = r.dataPerFire === null ? "" : `, of which live data ${r.dataPerFire.toFixed(0)} B`;
    console.log(`${name}: WAL ${r.walPerFire.toFixed(0)} B, kept ${r.livePerFire.toFixed(0)} B${data}`);
  }
} finally {
  await ctx.close();
}
