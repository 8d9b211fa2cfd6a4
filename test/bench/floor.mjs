// The floor of what a fired one-shot keeps and writes, by row layout: the
// measurements of storage.mjs (VACUUM every 2,000 fires, per fired
// one-shot: WAL, bytes kept, live data) for ttr's statements beside two
// layouts ttr does not have, fired with plain statements on the same schema:
// - once: the trigger is inserted and then updated once, to completed; its
//   execution is inserted once, complete (no queued, running, planned or
//   started versions, so nothing to recover a lost attempt from);
// - merged: as once, but the response is kept on the trigger row (columns
//   added for the run) and there is no execution row.
// - derived: ttr's statements, except that an attempt's start updates only
//   its trigger (to running, with the start, timeout and deadline on the
//   trigger row, and the lost-attempt index on triggers instead of
//   executions): the execution goes from planned to complete, and reads as
//   started meanwhile.
// What these give is the least any layout that keeps the request and the
// response can reach (test/bench/HISTORY.md, entry 75).
// Usage: node test/bench/floor.mjs [N] [current,derived,once,merged]   (defaults 20000, all four)
import { openBench } from "./lib/infra.mjs";
import { finishValues, promote, sql, startValues } from "./lib/statements.mjs";
import { insertTriggers } from "./lib/triggers.mjs";
import { RESPONSE_HEADERS, storage } from "./storage.mjs";

const n = Number(process.argv[2] ?? 20_000);
const names = (process.argv[3] ?? "current,derived,once,merged").split(",");

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

/**
 * start_attempts without its write to the execution: only the trigger is
 * updated, to running, and carries the attempt's start, timeout and
 * deadline (the execution reads as started while it is planned and its
 * trigger runs it).
 */
const START_ON_TRIGGER = `
UPDATE triggers t SET status = 'running', updated_at = clock_timestamp(), run_started_at = clock_timestamp(), run_timeout_seconds = $3::int,
       run_reap_after = clock_timestamp() + make_interval(secs => $3::int + $4::int)
FROM executions e
WHERE e.id = ANY ($1::uuid[]) AND e.part_day = $2::date AND e.status = 'planned'
  AND t.id = e.trigger_id AND t.part_day = $2::date AND t.status IN ('queued', 'retrying') AND t.attempts = e.attempt_number`;

const layouts = {
  current: {},
  derived: {
    prepare: async (client) => {
      await client.query("ALTER TABLE triggers ADD COLUMN run_started_at timestamptz(3), ADD COLUMN run_timeout_seconds int, ADD COLUMN run_reap_after timestamptz(3)");
      await client.query("CREATE INDEX triggers_running_reap_idx ON triggers (run_reap_after) WHERE status = 'running'");
      await client.query("DROP INDEX executions_reap_idx");
    },
    fire: async (client, projectId, { from, count, batch = 500 }) => {
      const due = Math.floor(Date.now() / 1000) * 1000 - 1000;
      await insertTriggers(client, projectId, { from, count, sinkBase: "http://127.0.0.1:40000", dueAt: () => due, idBase: 1e9 });
      const finish = sql("finish_attempts").replace("e.status::text = 'started'", "e.status::text = 'planned'");
      for (;;) {
        await client.query("BEGIN");
        const promoted = await promote(client, new Date(), batch);
        await client.query("COMMIT");
        for (let i = 0; i < promoted.length; i += 100) {
          const chunk = promoted.slice(i, i + 100);
          await client.query(START_ON_TRIGGER, startValues(chunk));
          await client.query(finish, finishValues(chunk, RESPONSE_HEADERS));
        }
        if (promoted.length < batch) return;
      }
    },
  },
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
