// declare: /declare of 10,000 keyed items (first call: all added; second:
// all unchanged; third: 1% changed), each timed, and /bulk with 10,000
// upserts (twice, with new keys each time), beside BullMQ's addBulk of the
// same 10,000 requests as delayed jobs, what a hand-built queue does to
// store them. The api runs as a process; the triggers are due in a day, so
// nothing fires meanwhile.
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { startTtr } from "../lib/services.mjs";
import { benchProject } from "../lib/triggers.mjs";

export const sizes = { full: { items: 10_000 }, quick: { items: 500 } };

async function post(base, apiKey, path, body) {
  const started = performance.now();
  const res = await fetch(`${base}${path}`, { method: "POST", headers: { "ttr-api-key": apiKey, "content-type": "application/json" }, body: JSON.stringify(body) });
  const text = await res.text();
  const ms = performance.now() - started;
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${text.slice(0, 500)}`);
  return { ms, summary: JSON.parse(text).summary };
}

function items(count, at, { prefix = "k", changed = 0 } = {}) {
  const out = [];
  for (let i = 0; i < count; i++) {
    out.push({
      customKey: `${prefix}${i}`,
      url: `http://127.0.0.1:9/t/${i}${i < changed ? "?v=2" : ""}`,
      scheduledAt: at,
      method: "POST",
      headers: { "content-type": "application/json" },
      body: { n: i },
    });
  }
  return out;
}

function expect(what, summary, expected) {
  for (const [k, v] of Object.entries(expected)) {
    if (summary[k] !== v) throw new Error(`${what}: summary.${k} is ${summary[k]}, expected ${v} (${JSON.stringify(summary)})`);
  }
}

/**
 * The baseline: the same requests as BullMQ delayed jobs, one addBulk call
 * per run (the job data is the request). Three runs after one warm-up, each
 * in a queue of its own; the median is kept.
 */
async function addBulkMs(ctx, prefix, list, at) {
  const connection = new Redis(ctx.redisUrl, { maxRetriesPerRequest: null });
  const timings = [];
  try {
    for (let run = 0; run < 4; run++) {
      const queue = new Queue(`addbulk-${run}`, { connection, prefix });
      const now = Date.now();
      const delay = Date.parse(at) - now;
      const jobs = list.map((item) => ({ name: "send", data: item, opts: { timestamp: now, delay, attempts: 1, jobId: item.customKey, removeOnComplete: true, removeOnFail: 1000 } }));
      const started = performance.now();
      await queue.addBulk(jobs);
      if (run > 0) timings.push(performance.now() - started);
      await queue.obliterate({ force: true });
      await queue.close();
    }
  } finally {
    connection.disconnect();
  }
  return timings.sort((a, b) => a - b)[1];
}

/**
 * @param {import("../lib/infra.mjs").BenchContext} ctx
 * @param {{quick?: boolean, config: import("../config.mjs").Config, log?: (m: string) => void}} opts
 */
export async function declareOnce(ctx, opts) {
  const n = (opts.quick ? sizes.quick : sizes.full).items;
  const changed = Math.max(1, Math.round(n / 100));
  const database = await ctx.database();
  const sys = await startTtr(database, ctx.redisUrl, { ...opts.config.services, scheduler: false, executors: 0 });
  try {
    const { apiKey } = await benchProject(database.url);
    const at = new Date(Math.floor(Date.now() / 1000) * 1000 + 86_400_000).toISOString();
    opts.log?.(`declare: ${n} items ×3, bulk ${n} upserts`);
    const first = await post(sys.apiBase, apiKey, "/declare", { tag: "bench", items: items(n, at) });
    expect("first /declare", first.summary, { added: n });
    const second = await post(sys.apiBase, apiKey, "/declare", { tag: "bench", items: items(n, at) });
    expect("second /declare", second.summary, { unchanged: n });
    const third = await post(sys.apiBase, apiKey, "/declare", { tag: "bench", items: items(n, at, { changed }) });
    expect("third /declare", third.summary, { updated: changed, unchanged: n - changed });
    const bulk = await post(sys.apiBase, apiKey, "/bulk", { upserts: items(n, at, { prefix: "b" }) });
    expect("/bulk", bulk.summary, { added: n });
    // a second call, the api's /bulk path warm, as in a running deployment
    const bulkWarm = await post(sys.apiBase, apiKey, "/bulk", { upserts: items(n, at, { prefix: "c" }) });
    expect("second /bulk", bulkWarm.summary, { added: n });
    const addBulk = await addBulkMs(ctx, database.redisPrefix, items(n, at, { prefix: "q" }), at);
    return {
      items: n,
      firstAddedMs: first.ms,
      secondUnchangedMs: second.ms,
      thirdChangedMs: third.ms,
      bulkUpsertsMs: bulk.ms,
      bulkWarmMs: bulkWarm.ms,
      addBulkMs: addBulk,
      // items/s of the warm /bulk over items/s of addBulk
      bulkVsAddBulk: addBulk / bulkWarm.ms,
      apiRssMb: sys.api.memory().rss,
    };
  } finally {
    await sys.stop();
    await database.drop();
  }
}
