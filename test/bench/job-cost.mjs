// What the queue costs per attempt, by how many attempts a BullMQ job
// carries: adds N attempts (in addBulk calls of 1,000, as a scheduler tick
// would) as jobs of G attempts each, drains them with one worker whose
// handler does nothing, and reports this process's CPU (producer and worker
// together) and Redis's CPU (INFO cpu) per attempt. The figures behind
// ttr's jobs of up to 20 attempts (docs/concepts.md, the queue).
// Redis CPU is counted server-wide: run it alone.
// Usage: node test/bench/job-cost.mjs [N] [G…]   (defaults 20000 and 1 10 20)
import { randomUUID } from "node:crypto";
import { createRequire } from "node:module";

// bullmq and ioredis as the services have them
const require = createRequire(new URL("../../services/scheduler/package.json", import.meta.url));
const { Queue, Worker } = require("bullmq");
const { Redis } = require("ioredis");

const N = Number(process.argv[2] ?? 20_000);
const sizes = process.argv.length > 3 ? process.argv.slice(3).map(Number) : [1, 10, 20];
const url = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const connect = () => new Redis(url, { maxRetriesPerRequest: null });

/** Redis's CPU seconds so far (user + system). */
async function redisCpu(redis) {
  const info = await redis.info("cpu");
  const field = (name) => Number(info.match(new RegExp(`${name}:([\\d.]+)`))?.[1]);
  return field("used_cpu_user") + field("used_cpu_sys");
}

/** The addBulk entries for `count` attempts in jobs of `size`. */
function jobsOf(count, size) {
  const attempts = Array.from({ length: count }, () => ({ executionId: randomUUID(), partDay: "2026-01-01" }));
  const jobs = [];
  for (let i = 0; i < count; i += size) {
    const carried = attempts.slice(i, i + size);
    jobs.push({ name: "attempts", data: { attempts: carried }, opts: { attempts: 1, removeOnComplete: true } });
  }
  return jobs;
}

async function measure(size) {
  const prefix = `ttr-job-cost-${process.pid}-${size}`;
  const admin = connect();
  const queue = new Queue("attempts", { connection: connect(), prefix });
  let drained = 0;
  let done;
  const all = new Promise((resolve) => (done = resolve));
  const worker = new Worker(
    "attempts",
    async (job) => {
      drained += job.data.attempts.length;
      if (drained >= N) done();
    },
    { connection: connect(), prefix, concurrency: Math.max(1, Math.ceil(200 / size)), skipVersionCheck: true },
  );
  await worker.waitUntilReady();
  const redis0 = await redisCpu(admin);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < N; i += 1000) await queue.addBulk(jobsOf(Math.min(1000, N - i), size));
  await all;
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const redisUs = ((await redisCpu(admin)) - redis0) * 1e6;
  await worker.close();
  await queue.obliterate({ force: true });
  await queue.close();
  admin.disconnect();
  return { size, ms, nodeUs: (cpu.user + cpu.system) / N, redisUs: redisUs / N };
}

console.log(`${N.toLocaleString("en-US")} attempts added and drained at once`);
console.log("attempts per job | wall | Node.js CPU per attempt | Redis CPU per attempt");
for (const size of sizes) {
  const r = await measure(size);
  console.log(`${String(r.size).padStart(16)} | ${(r.ms / 1000).toFixed(2).padStart(5)} s | ${r.nodeUs.toFixed(1).padStart(20)} µs | ${r.redisUs.toFixed(1).padStart(18)} µs`);
}
process.exit(0);
