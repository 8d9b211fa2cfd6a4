// Health, readiness and Prometheus metrics (CONTRACT §9). The api mounts
// `opsHandler` in express; the scheduler and executor serve it on their own
// METRICS_PORT with `startOpsServer`.
import http from "node:http";
import client from "prom-client";

export type ReadyCheck = () => Promise<boolean>;

export function createRegistry(service: string): client.Registry {
  const registry = new client.Registry();
  registry.setDefaultLabels({ service });
  client.collectDefaultMetrics({ register: registry });
  return registry;
}

/** Answers /healthz, /readyz and /metrics; returns false for any other path. */
export async function handleOps(
  pathname: string,
  registry: client.Registry,
  ready: ReadyCheck,
): Promise<{ status: number; type: string; body: string } | null> {
  switch (pathname) {
    case "/healthz":
      return { status: 200, type: "application/json", body: '{"status":"ok"}' };
    case "/readyz": {
      const ok = await ready().catch(() => false);
      return { status: ok ? 200 : 503, type: "application/json", body: JSON.stringify({ status: ok ? "ready" : "unavailable" }) };
    }
    case "/metrics":
      return { status: 200, type: registry.contentType, body: await registry.metrics() };
    default:
      return null;
  }
}

export function startOpsServer(port: number, registry: client.Registry, ready: ReadyCheck): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    const pathname = new URL(req.url ?? "/", "http://localhost").pathname;
    if (req.method !== "GET") {
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
