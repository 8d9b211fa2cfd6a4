// The baseline's worker process: a BullMQ worker that sends each job's
// request with got, nothing else (no execution records, no policies). It is
// what a user would run without ttr. GET /ready answers once it is running.
import http from "node:http";
import { Worker } from "bullmq";
import got from "got";
import { Redis } from "ioredis";

const env = process.env;
const connection = new Redis(env.REDIS_URL, { maxRetriesPerRequest: null });
const client = got.extend({ retry: { limit: 0 }, throwHttpErrors: false, followRedirect: false, timeout: { request: 300_000 } });

const worker = new Worker(env.BASELINE_QUEUE, async (job) => {
  await client(job.data.url);
}, { connection, prefix: env.BASELINE_PREFIX, concurrency: Number(env.CONCURRENCY), skipVersionCheck: true });
worker.on("error", (err) => console.error(`worker error: ${err.message}`));
await worker.waitUntilReady();

const server = http.createServer((req, res) => res.writeHead(req.url === "/ready" ? 200 : 404).end());
server.listen(Number(env.PORT), "127.0.0.1");

async function shutdown() {
  server.close();
  await worker.close();
  connection.disconnect();
  process.exit(0);
}
process.on("SIGTERM", () => void shutdown());
process.on("SIGINT", () => void shutdown());
