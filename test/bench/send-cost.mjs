// The executor's CPU per attempt on its send path, two builds side by side:
// `sendAttempt` of build A and of build B (each a directory holding a built
// send.js, e.g. services/executor/dist and a copy of an older build beside
// it, services/executor/dist-old, so that its imports resolve) sends small
// JSON POSTs to a keep-alive target in another process, `parallel` at a
// time. Builds take turns A, B, B, A, A, B, … so that whatever else the
// machine does falls on both alike; each turn runs in a fresh process and
// reports that process's CPU (user + system) per attempt, after a warm-up.
//
//   node test/bench/send-cost.mjs <distA> <distB> [turns=6] [attempts=20000] [parallel=50]
//
// Prints each turn and the medians; nothing is recorded (write what it
// gave in HISTORY.md).
import { fork } from "node:child_process";
import http from "node:http";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = fileURLToPath(import.meta.url);

if (process.argv[2] === "--turn") {
  // One turn, in a process of its own: argv = --turn <dist> <port> <attempts> <parallel>
  const [, , , dist, port, attempts, parallel] = process.argv;
  const { sendAttempt, destroyAgents } = await import(pathToFileURL(path.resolve(dist, "send.js")).href);
  const body = Buffer.from(JSON.stringify({ event: "reminder", id: 42, note: "a small JSON body" }));
  const request = { method: "POST", url: `http://127.0.0.1:${port}/hook`, headers: [["Content-Type", "application/json"]], body, source: "schedule" };
  const options = { timeoutSeconds: 10, blockPrivateNetworks: false };
  const run = async (n) => {
    let next = 0;
    const lane = async () => {
      while (next < n) {
        next++;
        const r = await sendAttempt(request, options);
        if (r.kind !== "response" || r.status !== 200) throw new Error(`attempt failed: ${JSON.stringify(r)}`);
      }
    };
    await Promise.all(Array.from({ length: Number(parallel) }, lane));
  };
  await run(Math.min(2000, Number(attempts))); // warm-up
  const before = process.cpuUsage();
  await run(Number(attempts));
  const used = process.cpuUsage(before);
  destroyAgents();
  process.send?.({ usPerAttempt: (used.user + used.system) / Number(attempts) });
  process.exit(0);
}

if (process.argv[2] === "--target") {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => res.writeHead(200, { "Content-Type": "application/json" }).end('{"ok":true}'));
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, "127.0.0.1", () => process.send?.(server.address().port));
} else {
  await compare();
}

async function compare() {
const [distA, distB] = [process.argv[2], process.argv[3]];
if (!distA || !distB) {
  console.error("usage: node test/bench/send-cost.mjs <distA> <distB> [turns=6] [attempts=20000] [parallel=50]");
  process.exit(2);
}
const turns = Number(process.argv[4] ?? 6);
const attempts = Number(process.argv[5] ?? 20_000);
const parallel = Number(process.argv[6] ?? 50);

// The target: another process, so its CPU is not counted.
const target = fork(here, ["--target"], { stdio: "inherit" });
const port = await new Promise((resolve) => target.once("message", resolve));

function turn(dist) {
  return new Promise((resolve, reject) => {
    const child = fork(here, ["--turn", dist, String(port), String(attempts), String(parallel)], { stdio: "inherit" });
    child.once("message", (m) => resolve(m.usPerAttempt));
    child.once("exit", (code) => code !== 0 && reject(new Error(`turn exited ${code}`)));
  });
}

const figures = { A: [], B: [] };
const order = ["A", "B", "B", "A"];
for (let i = 0; i < turns * 2; i++) {
  const which = order[i % 4];
  const us = await turn(which === "A" ? distA : distB);
  figures[which].push(us);
  console.log(`${which} ${us.toFixed(1)} µs per attempt`);
}
target.kill();
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const which of ["A", "B"]) {
  const xs = figures[which];
  console.log(`${which} (${which === "A" ? distA : distB}): median ${median(xs).toFixed(1)} µs, ${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)} over ${xs.length} turns`);
}
}
