// A real HTTP target on 127.0.0.1 that records arrival times (see
// sink-worker.mjs). Trigger n is sent to `<base>/t/<n>`.
import { Worker } from "node:worker_threads";

/**
 * @typedef {object} Sink
 * @property {string} base
 * @property {Int32Array} counts  arrivals per trigger
 * @property {Float64Array} first  first arrival (epoch ms) per trigger
 * @property {Int32Array} seq  rank of the first arrival among all first arrivals
 * @property {() => number} distinct
 * @property {() => number} arrivals
 * @property {() => number} strays
 * @property {() => number} warmups  arrivals of the unmeasured warm-up (`/w/<n>`)
 * @property {(n: number, opts: {deadline: number, stallMs?: number, onTick?: (distinct: number) => void}) => Promise<boolean>} waitFor
 *   true once n distinct arrived; false at the deadline or when nothing new arrived for stallMs (default 30 s)
 * @property {() => Promise<void>} close
 */

/** @returns {Promise<Sink>} */
export async function startSink(size, { holdMs = 0 } = {}) {
  const countsBuf = new SharedArrayBuffer(4 * size);
  const firstBuf = new SharedArrayBuffer(8 * size);
  const seqBuf = new SharedArrayBuffer(4 * size);
  const totalsBuf = new SharedArrayBuffer(4 * 4);
  const worker = new Worker(new URL("./sink-worker.mjs", import.meta.url), { workerData: { countsBuf, firstBuf, seqBuf, totalsBuf, holdMs } });
  const port = await new Promise((resolve, reject) => {
    worker.once("message", (m) => resolve(m.port));
    worker.once("error", reject);
  });
  const totals = new Int32Array(totalsBuf);
  const distinct = () => Atomics.load(totals, 1);
  return {
    base: `http://127.0.0.1:${port}`,
    counts: new Int32Array(countsBuf),
    first: new Float64Array(firstBuf),
    seq: new Int32Array(seqBuf),
    distinct,
    arrivals: () => Atomics.load(totals, 0),
    strays: () => Atomics.load(totals, 2),
    warmups: () => Atomics.load(totals, 3),
    async waitFor(n, { deadline, stallMs = 30_000, onTick }) {
      let seen = distinct();
      let progressAt = Date.now();
      while (distinct() < n) {
        const now = Date.now();
        if (distinct() !== seen) {
          seen = distinct();
          progressAt = now;
        }
        if (now > deadline || now - progressAt > stallMs) return false;
        onTick?.(seen);
        await new Promise((r) => setTimeout(r, 100));
      }
      return true;
    },
    async close() {
      const closed = new Promise((resolve) => worker.on("message", (m) => m.closed && resolve()));
      worker.postMessage("close");
      await Promise.race([closed, new Promise((r) => setTimeout(r, 2000))]);
      await worker.terminate();
    },
  };
}
