// Health, readiness and Prometheus metrics (docs/operations.md). The api mounts
// `opsHandler` in express; the scheduler and executor serve it on their own
// METRICS_PORT with `startOpsServer`.
import http from "node:http";
import client from "prom-client";
import { orAfter } from "./outage.js";

/** One probe per store the service needs, by name (`postgres`, `redis`): resolves true when it answers. */
export type ReadyChecks = Record<string, () => Promise<boolean>>;

/**
 * How long /readyz waits for each probe. A store that is down may not
 * answer at all (a network that drops packets, a client that queues its
 * commands until it reconnects), and a probe that times out must get its
 * answer first: 503 well within a second.
 */
export const READY_TIMEOUT_MS = 800;

function answersInTime(check: () => Promise<boolean>): Promise<boolean> {
  return orAfter(check().catch(() => false), READY_TIMEOUT_MS, () => false);
}

/** The stores that did not answer in time, probed all at once. */
export async function storesDown(checks: ReadyChecks): Promise<string[]> {
  const names = Object.keys(checks);
  const ok = await Promise.all(names.map((name) => answersInTime(checks[name]!)));
  return names.filter((_, i) => !ok[i]);
}

/**
 * `ttr_store_up{store}`: 1 when the store answered the same probe /readyz
 * makes, 0 when not; probed at each scrape. Prometheus sees a pod that is
 * not ready (the kubelet's view) with the store to blame, on every service.
 */
export function registerStoreProbes(registry: client.Registry, checks: ReadyChecks): void {
  new client.Gauge({
    name: "ttr_store_up",
    help: "1 when the store (postgres, redis) answered the readiness probe at this scrape, else 0",
    labelNames: ["store"] as const,
    registers: [registry],
    async collect() {
      const down = await storesDown(checks);
      for (const store of Object.keys(checks)) this.set({ store }, down.includes(store) ? 0 : 1);
    },
  });
}

/**
 * How often the event-loop delay behind `nodejs_eventloop_lag_*` is sampled:
 * prom-client's 10 ms wakes every process 100 times a second, which cost
 * each of them about 4 ms of CPU per second, idle or busy
 * (docs/operations.md, health and metrics).
 */
export const EVENT_LOOP_SAMPLE_MS = 100;

export function createRegistry(service: string): client.Registry {
  const registry = new client.Registry();
  registry.setDefaultLabels({ service });
  client.collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
  return registry;
}

/** Answers /healthz, /readyz and /metrics; returns false for any other path. */
export async function handleOps(
  pathname: string,
  registry: client.Registry,
  ready: ReadyChecks,
): Promise<{ status: number; type: string; body: string } | null> {
  switch (pathname) {
    case "/healthz":
      return { status: 200, type: "application/json", body: '{"status":"ok"}' };
    case "/readyz": {
      const down = await storesDown(ready);
      const body = down.length === 0 ? { status: "ready" } : { status: "unavailable", down };
      return { status: down.length === 0 ? 200 : 503, type: "application/json", body: JSON.stringify(body) };
    }
    case "/metrics":
      return { status: 200, type: registry.contentType, body: await registry.metrics() };
    default:
      return null;
  }
}

/** Serves handleOps on `port`, and adds the stores' probes to the registry (registerStoreProbes). */
export function startOpsServer(port: number, registry: client.Registry, ready: ReadyChecks): Promise<http.Server> {
  registerStoreProbes(registry, ready);
  const server = http.createServer((req, res) => {
    const pathname = new URL(req.url ?? "/", "http://localhost").pathname;
    // HEAD as GET, as the api answers it (Node sends no body to a HEAD)
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(404).end();
      return;
    }
    handleOps(pathname, registry, ready).then(
      (out) => {
        if (!out) res.writeHead(404).end();
        else res.writeHead(out.status, { "content-type": out.type }).end(out.body);
      },
      () => res.writeHead(500).end(),
    );
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, () => resolve(server));
  });
}

export { client as prom };
