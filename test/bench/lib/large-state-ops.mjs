// The large-state scenario's requests to a running api (scenarios/large-state.mjs):
// POST /schedule at a fixed rate, the dashboard's reads through a signed-in
// session, and the operations made with the API key. Each is timed from
// request to the last byte.
import autocannon from "autocannon";
import { INSTANCES } from "./large-state-seed.mjs";
import { dashboardSession, repeat, timed } from "./session-client.mjs";
import { percentile } from "./stats.mjs";

const DAY_MS = 86_400_000;
/** rows per dashboard page */
const PAGE = 50;

/** An autocannon run; `onResponse(ms)` sees each answered request's latency. */
function autocannonRun(options, onResponse) {
  return new Promise((resolve, reject) => {
    const run = autocannon(options, (err, r) => (err ? reject(err) : resolve(r)));
    if (onResponse) run.on("response", (_client, _status, _bytes, ms) => onResponse(ms));
  });
}

/**
 * POST /schedule at a fixed rate (autocannon -R, 8 connections, no
 * coordinated-omission correction, as api.mjs), after a 2-s warm-up. Beside
 * the figures, `times` holds every answered request's latency (ms), so that
 * several runs can be taken as one (poolSchedule).
 */
export async function scheduleLatency(base, apiKey, rate, seconds) {
  const options = {
    url: `${base}/schedule`,
    method: "POST",
    headers: { "ttr-api-key": apiKey, "ttr-url": "http://127.0.0.1:9/t/0", "ttr-scheduled-at": "2099-01-01T00:00:00Z", "content-type": "application/json" },
    body: '{"hello":"world"}',
    connections: 8,
    ignoreCoordinatedOmission: true,
  };
  await autocannonRun({ ...options, overallRate: 100, duration: 2 });
  const times = [];
  const r = await autocannonRun({ ...options, overallRate: rate, duration: seconds }, (ms) => times.push(ms));
  return { p50: r.latency.p50, p99: r.latency.p99, max: r.latency.max, sentPerS: r.requests.total / seconds, failed: r.errors + r.timeouts + r.non2xx, times };
}

/**
 * Runs of scheduleLatency taken as one: percentiles over every request of
 * every run (nearest rank), failures added up, each run's own figures under
 * `runs` (without their latencies).
 */
export function poolSchedule(runs) {
  const all = Float64Array.from(runs.flatMap((r) => r.times)).sort();
  return {
    p50: percentile(all, 50),
    p99: percentile(all, 99),
    max: all[all.length - 1] ?? Number.NaN,
    sentPerS: runs.reduce((t, r) => t + r.sentPerS, 0) / runs.length,
    failed: runs.reduce((t, r) => t + r.failed, 0),
    runs: runs.map(({ times: _times, ...r }) => r),
  };
}

/** The dashboard's reads, each `n` times in a row (after one warm-up), in ms; `generator` has INSTANCES instances. */
export async function dashboardReads(base, url, db, projectId, n, generator) {
  const session = await dashboardSession(base, url, projectId);
  // A completed trigger with a custom key (seeded history), else any completed one (a fired one).
  const keyed = await db.query("SELECT id::text AS id, custom_key AS key FROM triggers WHERE project_id = $1 AND status = 'completed' AND custom_key IS NOT NULL LIMIT 1", [projectId]);
  const any = keyed.rows[0] ?? (await db.query("SELECT id::text AS id, NULL AS key FROM triggers WHERE project_id = $1 AND status = 'completed' LIMIT 1", [projectId])).rows[0];
  if (!any) throw new Error("no completed trigger to read");
  const first = JSON.parse((await session.get(`/triggers?limit=${PAGE}`)).text);
  if (!first.nextCursor) throw new Error("GET /triggers: no second page");
  const reads = {
    "GET /triggers (first page)": `/triggers?limit=${PAGE}`,
    "GET /triggers, second page (cursor)": `/triggers?limit=${PAGE}&cursor=${first.nextCursor}`,
    "GET /triggers?tag= (tag without rows)": `/triggers?limit=${PAGE}&tag=no-such-tag`,
    "GET /triggers?tag= (tag with rows)": `/triggers?limit=${PAGE}&tag=billing`,
    "GET /triggers?status=registered": `/triggers?limit=${PAGE}&status=registered`,
    "GET /triggers?status=retrying (no rows)": `/triggers?limit=${PAGE}&status=retrying`,
    "GET /triggers?customKey=": `/triggers?limit=${PAGE}&customKey=${encodeURIComponent(any.key ?? "order-1")}`,
    [`GET /triggers?generatorId= (${INSTANCES} instances)`]: `/triggers?limit=${PAGE}&generatorId=${generator}`,
    "GET /executions (first page)": `/executions?limit=${PAGE}`,
    "GET /executions?deadLetterOnly=true": `/executions?limit=${PAGE}&deadLetterOnly=true`,
    "GET /triggers/:id (detail with executions)": `/triggers/${any.id}`,
    "GET /executions?triggerId=": `/executions?limit=${PAGE}&triggerId=${any.id}`,
    "GET /stats?minutes=60": "/stats?minutes=60",
    "GET /overview?minutes=60": "/overview?minutes=60",
    "GET /project": "/project",
    "GET /tag-policies": "/tag-policies",
  };
  const out = {};
  for (const [label, path] of Object.entries(reads)) out[label] = await repeat(label, n, () => session.get(path));
  return out;
}

/** API-key operations: cancel by id and by custom key (n each), by tag (one call), /declare (added, then unchanged). */
export async function apiOps(base, apiKey, targets, size) {
  const key = { "ttr-api-key": apiKey };
  const json = { ...key, "content-type": "application/json" };
  const out = {};
  out["DELETE /cancel (ttr-trigger-id)"] = await repeat("DELETE /cancel by id", size.reads, (i) => timed(`${base}/cancel`, { method: "DELETE", headers: { ...key, "ttr-trigger-id": targets.ids[i + 1] } }), 204);
  out["DELETE /cancel (ttr-custom-key)"] = await repeat("DELETE /cancel by key", size.reads, (i) => timed(`${base}/cancel`, { method: "DELETE", headers: { ...key, "ttr-custom-key": targets.keys[i + 1] } }), 204);
  const byTag = await timed(`${base}/bulk`, { method: "POST", headers: json, body: JSON.stringify({ cancels: [{ tag: "cancel-me" }] }) });
  const cancelled = byTag.status === 200 ? JSON.parse(byTag.text).summary.cancelled : -1;
  if (cancelled !== size.cancelByTag) throw new Error(`POST /bulk cancel by tag: ${byTag.status}, cancelled ${cancelled} of ${size.cancelByTag}: ${byTag.text.slice(0, 300)}`);
  out[`POST /bulk cancels [{tag}] (${size.cancelByTag.toLocaleString("en-US")} pending)`] = byTag.ms;
  const at = new Date(Math.floor(Date.now() / 1000) * 1000 + DAY_MS).toISOString();
  const items = Array.from({ length: size.declareItems }, (_, i) => ({ customKey: `d${i}`, url: `http://127.0.0.1:9/t/${i}`, scheduledAt: at, method: "POST", body: { n: i } }));
  const body = JSON.stringify({ tag: "bench-declare", items });
  for (const [label, expect] of [["added", "added"], ["unchanged", "unchanged"]]) {
    const r = await timed(`${base}/declare`, { method: "POST", headers: json, body });
    const got = r.status === 200 ? JSON.parse(r.text).summary[expect] : -1;
    if (got !== size.declareItems) throw new Error(`POST /declare (${label}): ${r.status}, ${expect} ${got}: ${r.text.slice(0, 300)}`);
    out[`POST /declare, ${size.declareItems.toLocaleString("en-US")} items (all ${label})`] = r.ms;
  }
  return out;
}
