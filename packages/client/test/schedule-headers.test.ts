// The header names schedule() refuses before sending are the ones the api
// never stores (isForwardedName of @ttr/core, which POST /triggers applies):
// `ttr-` and connection-level names. fetch itself refuses several of the
// latter, which without this check became a Transport error ("invalid
// keep-alive header") instead of the TypeError the README promises.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createClient } from "@ttr/client";
import { isForwardedName } from "@ttr/core";
import { describe, expect, it } from "vitest";

const readme = readFileSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "README.md"), "utf8");

/** Names to try: every hop-by-hop or message-level name HTTP defines, and ordinary ones a target may want. */
const NAMES = [
  "connection",
  "Keep-Alive",
  "proxy-connection",
  "Proxy-Authenticate",
  "proxy-authorization",
  "te",
  "trailer",
  "Transfer-Encoding",
  "upgrade",
  "Host",
  "content-length",
  "expect",
  "authorization",
  "cookie",
  "content-type",
  "accept",
  "accept-encoding",
  "user-agent",
  "x-request-id",
  "if-match",
  "proxy-x",
  "trailers",
];

/** A client whose fetch records each call and answers as /schedule does. */
function recordingClient() {
  const sent: Array<Record<string, string>> = [];
  const ttr = createClient({
    baseUrl: "http://ttr.invalid",
    apiKey: "ttr_k",
    fetch: async (_url, init) => {
      sent.push(init.headers as Record<string, string>);
      return Response.json({ triggerId: "t", scheduledAt: "2030-01-01T00:00:00.000Z", operation: "schedule", kind: "job", monthQuotaRemaining: 1 });
    },
  });
  return { ttr, sent };
}

describe("schedule({ headers }): the names the api would not store", () => {
  it("are refused with a TypeError before sending, exactly those of the api's rule", async () => {
    for (const name of NAMES) {
      const { ttr, sent } = recordingClient();
      const call = ttr.schedule({ url: "http://127.0.0.1:9/", scheduledAt: "now", headers: { [name]: "x" }, body: "abc" });
      if (isForwardedName(name)) {
        await expect(call, name).resolves.toMatchObject({ triggerId: "t" });
        expect(sent.map((h) => h[name.toLowerCase()]), name).toEqual(["x"]);
      } else {
        const err = await call.then(() => undefined, (e: unknown) => e);
        expect(err, name).toBeInstanceOf(TypeError);
        expect((err as TypeError).message).toBe(`schedule: header ${name} is connection-level: it describes this call, not the request to store, and is neither stored nor sent`);
        expect(sent, name).toEqual([]);
      }
    }
  });

  it("are listed in the README", () => {
    for (const name of NAMES.filter((n) => !isForwardedName(n))) expect(readme.toLowerCase(), name).toContain(`\`${name.toLowerCase()}\``);
  });
});
