// A target that closes an idle keep-alive connection just as the next
// request is written to it (gunicorn closes after 2 s, some proxies after
// 1 s, none of them saying so in a Keep-Alive header). The request then dies
// before any answer; it is sent again, once, on a new connection.
import net from "node:net";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { destroyAgents, parseSubnet } from "../src/net-guard.js";
import { type AttemptResult, type SendOptions, sendAttempt } from "../src/send.js";

interface RawTarget {
  port: number;
  /** Request lines, per connection in the order the connections were opened. */
  connections: string[][];
  close(): Promise<void>;
}

const OK = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";

/**
 * Reads request heads (bodyless requests only) and hands each to `answer`
 * with its connection's number and its number on that connection, both from 0.
 */
async function rawTarget(answer: (socket: net.Socket, connection: number, nth: number) => void): Promise<RawTarget> {
  const connections: string[][] = [];
  const server = net.createServer((socket) => {
    const seen: string[] = [];
    const connection = connections.push(seen) - 1;
    let buffered = "";
    socket.on("data", (chunk) => {
      buffered += chunk.toString("latin1");
      for (let end = buffered.indexOf("\r\n\r\n"); end !== -1; end = buffered.indexOf("\r\n\r\n")) {
        seen.push(buffered.slice(0, buffered.indexOf("\r\n")));
        buffered = buffered.slice(end + 4);
        answer(socket, connection, seen.length - 1);
      }
    });
    socket.on("error", () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    connections,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

let target: RawTarget | undefined;

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, 5));
}
afterEach(async () => {
  destroyAgents(); // no pooled connection carries over to the next test
  await target?.close();
  target = undefined;
});
afterAll(() => destroyAgents());

const OPTS: SendOptions = { timeoutSeconds: 5, blockPrivateNetworks: false };

function get(path: string, opts: SendOptions = OPTS): Promise<AttemptResult> {
  return sendAttempt({ method: "GET", url: `http://127.0.0.1:${target!.port}${path}`, headers: [], body: null, source: "schedule" }, opts);
}

/** The first request on a connection is answered; a later one finds the connection closing under it. */
const closesWhenReused = (socket: net.Socket, _connection: number, nth: number) => (nth === 0 ? socket.write(OK) : socket.destroy());

describe("a pooled connection that the target closes as a request is written to it", () => {
  it("sends the request again on a new connection, and records that answer", async () => {
    target = await rawTarget(closesWhenReused);
    expect(await get("/first")).toMatchObject({ kind: "response", status: 200 });
    expect(await get("/second")).toMatchObject({ kind: "response", status: 200, body: "ok" });
    expect(target.connections).toEqual([["GET /first HTTP/1.1", "GET /second HTTP/1.1"], ["GET /second HTTP/1.1"]]);
  });

  it("does the same through the agents that vet addresses", async () => {
    target = await rawTarget(closesWhenReused);
    const guarded: SendOptions = { ...OPTS, blockPrivateNetworks: true, allowNetworks: [parseSubnet("127.0.0.1/32")!] };
    expect(await get("/first", guarded)).toMatchObject({ kind: "response", status: 200 });
    expect(await get("/second", guarded)).toMatchObject({ kind: "response", status: 200 });
    expect(target.connections).toHaveLength(2);
  });

  it("sends it again only once: a second failure is the attempt's Transport error", async () => {
    target = await rawTarget((socket, connection, nth) => (connection === 0 && nth === 0 ? socket.write(OK) : socket.destroy()));
    expect(await get("/first")).toMatchObject({ kind: "response", status: 200 });
    const second = await get("/second");
    expect(second).toMatchObject({ kind: "network", errorMessage: `Transport error (GET http://127.0.0.1:${target.port}/second)` });
    expect(target.connections).toEqual([["GET /first HTTP/1.1", "GET /second HTTP/1.1"], ["GET /second HTTP/1.1"]]);
  });

  it("does not send again when the connection was new: the target itself dropped the request", async () => {
    target = await rawTarget((socket) => socket.destroy());
    expect(await get("/only")).toMatchObject({ kind: "network", errorMessage: `Transport error (GET http://127.0.0.1:${target.port}/only)` });
    expect(target.connections).toEqual([["GET /only HTTP/1.1"]]);
  });

  it("does not send again once a byte of the answer came: the target had read the request", async () => {
    target = await rawTarget((socket, _connection, nth) => {
      if (nth === 0) socket.write(OK);
      else socket.end("HTTP/1.1 200 OK\r\nX-Partial: 1\r\n");
    });
    expect(await get("/first")).toMatchObject({ kind: "response", status: 200 });
    expect(await get("/second")).toMatchObject({ kind: "network", errorMessage: `Transport error (GET http://127.0.0.1:${target.port}/second)` });
    expect(target.connections).toHaveLength(1);
  });

  it("does not send again when the connection broke more than a second after the request went out", async () => {
    target = await rawTarget((socket, _connection, nth) => (nth === 0 ? socket.write(OK) : setTimeout(() => socket.destroy(), 1300)));
    expect(await get("/first")).toMatchObject({ kind: "response", status: 200 });
    expect(await get("/second")).toMatchObject({ kind: "network", errorMessage: `Transport error (GET http://127.0.0.1:${target.port}/second)` });
    expect(target.connections).toHaveLength(1);
  });

  it("does not send again a request cut off by closing the agents (an executor stopping)", async () => {
    target = await rawTarget((socket, _connection, nth) => nth === 0 && socket.write(OK));
    expect(await get("/first")).toMatchObject({ kind: "response", status: 200 });
    const second = get("/second");
    await until(() => target!.connections[0]!.length === 2);
    destroyAgents();
    expect(await second).toMatchObject({ kind: "network" });
    expect(target.connections).toEqual([["GET /first HTTP/1.1", "GET /second HTTP/1.1"]]);
  });

  it("does not send again once the answer has begun: a broken answer is recorded as it is", async () => {
    target = await rawTarget((socket, _connection, nth) => {
      if (nth === 0) socket.write(OK);
      else socket.end("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\npart");
    });
    expect(await get("/first")).toMatchObject({ kind: "response", status: 200 });
    expect(await get("/second")).toMatchObject({ kind: "network", errorMessage: `Decode error (200 GET http://127.0.0.1:${target.port}/second)` });
    expect(target.connections).toHaveLength(1);
  });
});
