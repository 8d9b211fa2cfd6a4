// Figures from the sink's records, and the median / min–max of repeated runs.

/** Nearest-rank percentile of a sorted array. */
export function percentile(sorted, p) {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

/**
 * Correctness and lateness of triggers `from` … `from + count - 1`: early
 * (first arrival before the scheduled second), missed (never arrived),
 * duplicated (arrivals beyond the first), lateness in ms.
 * @param {import("./sink.mjs").Sink} sink
 * @param {{from?: number, count: number, dueAt: (n: number) => number}} set
 */
export function analyzeFiring(sink, { from = 0, count, dueAt }) {
  const lateness = new Float64Array(count);
  let received = 0;
  let missed = 0;
  let duplicated = 0;
  let early = 0;
  let firstArrival = Number.POSITIVE_INFINITY;
  let lastArrival = 0;
  for (let i = 0; i < count; i++) {
    const n = from + i;
    const c = sink.counts[n];
    if (c === 0) {
      missed++;
      lateness[i] = Number.POSITIVE_INFINITY;
      continue;
    }
    received++;
    duplicated += c - 1;
    const at = sink.first[n];
    const late = at - dueAt(n);
    if (late < 0) early++;
    lateness[i] = late;
    if (at < firstArrival) firstArrival = at;
    if (at > lastArrival) lastArrival = at;
  }
  lateness.sort();
  const got = lateness.subarray(0, received);
  return {
    count,
    received,
    missed,
    duplicated,
    early,
    firstArrival,
    lastArrival,
    lateness: { p50: percentile(got, 50), p99: percentile(got, 99), p999: percentile(got, 99.9), max: got[got.length - 1] ?? Number.NaN },
  };
}

/**
 * How far arrivals strayed from oldest-first order: for trigger i of the set
 * (claim order), |arrival rank − i|. Triggers run concurrently, so a small
 * displacement (up to about the attempts in flight) is expected.
 */
export function orderDisplacement(sink, { from = 0, count }) {
  const ranks = [];
  for (let i = 0; i < count; i++) if (sink.counts[from + i] > 0) ranks.push([sink.seq[from + i], i]);
  ranks.sort((a, b) => a[0] - b[0]);
  const d = new Float64Array(ranks.length);
  // Rank among this set's arrivals, compared with the position in claim order.
  const claimOrder = ranks.map((r) => r[1]).sort((a, b) => a - b);
  for (let k = 0; k < ranks.length; k++) d[k] = Math.abs(ranks[k][1] - claimOrder[k]);
  d.sort();
  return { p99: percentile(d, 99), max: d[d.length - 1] ?? 0 };
}

/** Arrival rate (per s) between the 10th and 90th percentile arrival: the sustained part of a drain. */
export function sustainedRate(sink, { from = 0, count }) {
  const times = [];
  for (let i = 0; i < count; i++) if (sink.counts[from + i] > 0) times.push(sink.first[from + i]);
  times.sort((a, b) => a - b);
  const lo = Math.floor(times.length * 0.1);
  const hi = Math.max(lo + 1, Math.floor(times.length * 0.9) - 1);
  const span = (times[hi] - times[lo]) / 1000;
  return span > 0 ? (hi - lo) / span : Number.NaN;
}

/** median, min and max of each numeric leaf over the runs' result objects (same shape). */
export function aggregate(runs) {
  const walk = (items) => {
    const sample = items[0];
    if (typeof sample === "number") {
      const values = items.filter((v) => typeof v === "number" && !Number.isNaN(v)).sort((a, b) => a - b);
      if (values.length === 0) return { median: Number.NaN, min: Number.NaN, max: Number.NaN, n: 0 };
      const mid = Math.floor(values.length / 2);
      const median = values.length % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
      return { median, min: values[0], max: values[values.length - 1], n: values.length };
    }
    if (sample && typeof sample === "object" && !Array.isArray(sample)) {
      const out = {};
      for (const key of Object.keys(sample)) out[key] = walk(items.map((i) => i?.[key]));
      return out;
    }
    return sample;
  };
  return walk(runs);
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

/** The next whole second at least `leadMs` from now (epoch ms). */
export function secondAfter(leadMs) {
  return Math.ceil((Date.now() + leadMs) / 1000) * 1000;
}
