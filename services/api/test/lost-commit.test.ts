// A plain /schedule one-shot whose INSERT committed but whose answer was
// lost with the connection (PostgreSQL killed right after the commit): the
// call finds its row and answers with it, instead of a 503 for a trigger
// that is stored and will fire. Between the api's pool and the real
// PostgreSQL sits a TCP relay that can drop the answer to the next INSERT
// (closing both sides) and refuse connections for a while.
import net from "node:net";
import { createPgRunner, createProject, createDb, isDatabaseUnavailable, type Db, type PgRunner } from "@ttr/db";
import { createLogger, freePort } from "@ttr/platform";
import { afterAll, beforeAll, expect, it } from "vitest";
import { freshDatabase, type TestDatabase } from "../../../test/support/db.js";
import { OneShotInserts } from "../src/schedule/inserts.js";

/** Relays TCP to PostgreSQL; can lose the answer to an INSERT into triggers, and refuse connections. */
class Relay {
  private server: net.Server | null = null;
  private readonly sockets = new Set<net.Socket>();
  /** drop the answer to the next INSERT into triggers, and the connection with it */
  cutNextInsert = false;
  cuts = 0;

  constructor(
    readonly port: number,
    private readonly to: { host: string; port: number },
  ) {}

  async open(): Promise<void> {
    const server = net.createServer((client) => {
      const upstream = net.connect(this.to.port, this.to.host);
      this.sockets.add(client).add(upstream);
      let cutting = false;
      const close = () => {
        client.destroy();
        upstream.destroy();
      };
      client.on("data", (chunk: Buffer) => {
        if (this.cutNextInsert && chunk.includes("INSERT INTO triggers")) {
          this.cutNextInsert = false;
          cutting = true;
        }
        upstream.write(chunk);
      });
      upstream.on("data", (chunk: Buffer) => {
        if (!cutting) return void client.write(chunk);
        this.cuts++;
        close();
      });
      client.on("error", close).on("close", close);
      upstream.on("error", close).on("close", close);
    });
    await new Promise<void>((r) => server.listen(this.port, "127.0.0.1", r));
    this.server = server;
  }

  /** Stops listening (new connections are refused) and ends every open one. */
  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
    const server = this.server;
    this.server = null;
    if (server) await new Promise((r) => server.close(r));
  }
}

let tdb: TestDatabase;
let db: Db;
let relay: Relay;
let pg: PgRunner;
let projectId: string;

beforeAll(async () => {
  tdb = await freshDatabase();
  db = createDb(tdb.url, { max: 2 });
  ({ projectId } = await createProject(db, "lost-commit", 100));
  const url = new URL(tdb.url);
  relay = new Relay(await freePort(), { host: url.hostname, port: Number(url.port || 5432) });
  await relay.open();
  url.hostname = "127.0.0.1";
  url.port = String(relay.port);
  pg = createPgRunner(url.toString(), { max: 2 });
});
afterAll(async () => {
  await pg?.end();
  await relay?.close();
  await db?.$disconnect();
  await tdb?.drop();
});

const row = (path: string) => ({
  projectId,
  status: "registered" as const,
  scheduledAt: new Date("2099-01-01T00:00:00Z"),
  request: { title: null, url: `http://127.0.0.1:9/${path}`, method: "POST", headers: [], body: null, tags: [], source: "schedule" as const },
});

const stored = async (url: string) =>
  (await db.$queryRawUnsafe<Array<{ id: string }>>("SELECT id::text AS id FROM triggers WHERE url = $1", url)).map((r) => r.id);

const log = createLogger("api", "error");

it("an INSERT that committed but lost its answer: the call answers its id, and the row is stored once", async () => {
  const inserts = new OneShotInserts(pg, log);
  relay.cutNextInsert = true;
  const id = await inserts.insert(row("committed"), Date.now());
  expect(relay.cuts).toBe(1);
  expect(await stored("http://127.0.0.1:9/committed")).toEqual([id]);
});

it("PostgreSQL away past the answer's deadline: the call answers unavailable, and the row it committed is removed once PostgreSQL is back", async () => {
  const inserts = new OneShotInserts(pg, log);
  relay.cutNextInsert = true;
  relay.cuts = 0;
  const refuseAfterCut = setInterval(() => {
    if (relay.cuts > 0) {
      clearInterval(refuseAfterCut);
      void relay.close();
    }
  }, 1);
  // as if the request came 3.5 s ago: half a second is left to settle it
  const started = Date.now();
  const err = await inserts.insert(row("forgotten"), started - 3500).then(() => null, (e: unknown) => e);
  expect(isDatabaseUnavailable(err)).toBe(true);
  expect(Date.now() - started).toBeLessThan(1500);
  expect(await stored("http://127.0.0.1:9/forgotten")).toHaveLength(1);
  await relay.open();
  const deadline = Date.now() + 5000;
  while ((await stored("http://127.0.0.1:9/forgotten")).length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  expect(await stored("http://127.0.0.1:9/forgotten")).toEqual([]);
});

it("no connection at all (refused): the call answers unavailable at once, and nothing is stored", async () => {
  const inserts = new OneShotInserts(pg, log);
  await relay.close();
  // as when PostgreSQL stops: the pool has dropped its idle connections
  // (one still taken for live could have sent the INSERT, and is settled)
  await new Promise((r) => setTimeout(r, 100));
  const started = Date.now();
  const err = await inserts.insert(row("refused"), started).then(() => null, (e: unknown) => e);
  expect(isDatabaseUnavailable(err)).toBe(true);
  expect(Date.now() - started).toBeLessThan(500);
  await relay.open();
  expect(await stored("http://127.0.0.1:9/refused")).toEqual([]);
});
