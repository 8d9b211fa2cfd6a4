// A PostgreSQL switchover, as an operator (or an operator's tool, such as a
// Kubernetes PostgreSQL operator) makes one: the primary shuts down, its
// streaming standby is promoted, and the address the services use (here a
// TCP proxy, as a Service or a DNS name would be) leads to the new primary.
// Triggers that fall due around it are sent once each, none early, within
// seconds of the promotion, and the api stores again.
import net from "node:net";
import pg from "pg";
import { afterAll, expect, it } from "vitest";
import { deliveredOnce, figure, secondAfter, sleep, until, useRig } from "./rig.js";
import { type PgServer, startPostgres } from "./servers.js";

/** Forwards each new connection to the port `to()` names at that moment. */
function tcpProxy(to: () => number): Promise<{ port: number; close(): void }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(to(), "127.0.0.1");
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
      s.on("error", () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    upstream.pipe(client);
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      resolve({
        port: (server.address() as net.AddressInfo).port,
        close() {
          for (const s of sockets) s.destroy();
          server.close();
        },
      });
    });
  });
}

let target = 0;
let proxy: Awaited<ReturnType<typeof tcpProxy>> | undefined;
let standby: PgServer | undefined;
const theRig = useRig({
  async databaseUrl(server) {
    target = server.port;
    proxy = await tcpProxy(() => target);
    return `postgresql://postgres@127.0.0.1:${proxy.port}/ttr`;
  },
});
afterAll(async () => {
  proxy?.close();
  await standby?.close();
});

async function one<T>(url: string, sql: string): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows[0] as T;
  } finally {
    await client.end();
  }
}

it("a switchover to the streaming standby while triggers fall due: each is sent once, none early, all within 10 s of the promotion; /schedule stores again", async () => {
  const rig = theRig();
  standby = await startPostgres({ standbyOf: rig.pg });
  await until(async () => (await one<{ n: number }>(rig.pg.url("postgres"), "SELECT count(*)::int AS n FROM pg_stat_replication WHERE state = 'streaming'")).n === 1, 10_000, "the standby streams");

  const first = secondAfter(2000);
  const due = new Map<string, Date>();
  for (let i = 0; i < 60; i++) due.set(`failover/${i}`, new Date(first.getTime() + Math.floor(i / 10) * 1000));
  await Promise.all([...due].map(([p, at]) => rig.schedule(p, at)));
  await sleep(first.getTime() + 1500 - Date.now());

  // a clean shutdown sends the standby all of the primary's WAL first
  await rig.pg.stop("fast");
  await standby.promote();
  target = standby.port;
  const promoted = Date.now();
  expect((await one<{ inRecovery: boolean }>(standby.url("postgres"), `SELECT pg_is_in_recovery() AS "inRecovery"`)).inRecovery).toBe(false);

  const stored = await until(async () => (await rig.call("POST", "/schedule", { "ttr-api-key": rig.apiKey, "ttr-url": `${rig.target.base}/after`, "ttr-scheduled-at": "now | add 1h" })).status === 200, 10_000, "/schedule answers 200");
  figure("PostgreSQL switchover", "/schedule stored again after the promotion", (stored - promoted) / 1000, "s");
  const arrivals = await deliveredOnce(rig, due, 30_000);
  const last = Math.max(...arrivals);
  expect(last - promoted, "the last due trigger sent within 10 s of the promotion").toBeLessThan(10_000);
  figure("PostgreSQL switchover", "triggers due around it, the last sent after the promotion", (last - promoted) / 1000, "s");
  const dues = [...due.values()].map((d) => d.getTime());
  figure("PostgreSQL switchover", "worst lateness of the triggers due around it", Math.max(...arrivals.map((a, i) => a - dues[i]!)) / 1000, "s");
}, 90_000);
