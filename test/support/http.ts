// A raw HTTP client for tests: sends exactly the headers given (node adds only
// Host and, for bodies, Content-Length) and returns status, headers and bytes.
// An answer from a watched api that its OpenAPI document does not describe
// fails the request (openapi-conformance.ts).
import http from "node:http";
import { isWatched, nonConformities } from "./openapi-conformance.js";

export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  text: string;
  json<T = any>(): T;
}

export function request(
  base: string,
  method: string,
  path: string,
  given: Record<string, string | string[] | undefined> = {},
  body?: string | Buffer,
): Promise<Reply> {
  const url = new URL(path, base);
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(given)) if (value !== undefined) headers[name] = value;
  const hasLength = Object.keys(headers).some((h) => h.toLowerCase() === "content-length" || h.toLowerCase() === "transfer-encoding");
  const sent = body !== undefined && !hasLength ? { ...headers, "Content-Length": String(Buffer.byteLength(body)) } : headers;
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers: sent, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const buf = Buffer.concat(chunks);
        const status = res.statusCode ?? 0;
        if (isWatched(url)) {
          let problems: string[];
          try {
            problems = nonConformities(method, url, { status, headers: res.headers, body: buf });
          } catch (err) {
            reject(err);
            return;
          }
          if (problems.length > 0) {
            reject(new Error(`The answer does not conform to /openapi.json:\n${problems.join("\n")}`));
            return;
          }
        }
        resolve({
          status,
          headers: res.headers,
          body: buf,
          text: buf.toString("utf8"),
          json: () => JSON.parse(buf.toString("utf8")),
        });
      });
      res.on("error", reject);
    });
    req.on("error", reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}
