// The sink's HTTP server, in a worker thread so that arrival times are taken
// on an event loop that nothing else in the bench process can delay. It
// records, per trigger number n of `/t/<n>`, how often it arrived and when
// it first arrived, in shared memory the main thread reads at any time.
// `/w/<n>` are warm-up requests sent before the measured window: counted,
// nothing else.
import http from "node:http";
import { parentPort, workerData } from "node:worker_threads";

const { countsBuf, firstBuf, seqBuf, totalsBuf, holdMs } = workerData;
const counts = new Int32Array(countsBuf);
const first = new Float64Array(firstBuf);
const seq = new Int32Array(seqBuf);
/** [arrivals, distinct, strays (unknown paths), warm-up arrivals (/w/…)] */
const totals = new Int32Array(totalsBuf);
const size = counts.length;

const server = http.createServer({ keepAliveTimeout: 65_000, requestTimeout: 0 }, (req, res) => {
  const at = Date.now();
  const url = req.url ?? "";
  const n = url.startsWith("/t/") ? Number.parseInt(url.slice(3), 10) : -1;
  if (n >= 0 && n < size) {
    if (counts[n] === 0) {
      first[n] = at;
      seq[n] = Atomics.add(totals, 1, 1);
    }
    counts[n]++;
    Atomics.add(totals, 0, 1);
  } else if (url.startsWith("/w/")) {
    Atomics.add(totals, 3, 1);
  } else {
    Atomics.add(totals, 2, 1);
  }
  // Bodies are not read but must be drained for keep-alive.
  req.resume();
  const answer = () => res.writeHead(200, { "content-type": "text/plain", "content-length": "2" }).end("ok");
  if (holdMs > 0) setTimeout(answer, holdMs);
  else answer();
});
server.keepAliveTimeout = 65_000;
server.headersTimeout = 66_000;
server.maxRequestsPerSocket = 0;
server.listen(0, "127.0.0.1", () => parentPort.postMessage({ port: server.address().port }));
parentPort.on("message", (m) => {
  if (m === "close") {
    server.closeAllConnections();
    server.close(() => parentPort.postMessage({ closed: true }));
  }
});
