// One request to the api: the address, the credentials, fetch, and the answer
// turned into a typed body or a TtrError.
import { errorFromAnswer, errorFromResponse, notJsonError, redirectError, transportError } from "./errors.js";

export type Fetch = (input: string, init: RequestInit) => Promise<Response>;

export interface Credentials {
  apiKey: string | undefined;
  /** `ttr_session=<token>` after login() where the runtime exposes Set-Cookie (Node), else undefined */
  sessionCookie: string | undefined;
}

export interface Call {
  method: string;
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  headers?: Record<string, string>;
  body?: RequestInit["body"];
  /** a JSON body; sets Content-Type: application/json */
  json?: unknown;
  signal?: AbortSignal | undefined;
  /** send the API key; false for the probes, the document and sign-in */
  auth?: boolean;
  /** statuses besides 2xx that are answers rather than errors (503 of /readyz) */
  accept?: number[];
}

export class Transport {
  private readonly base: URL;

  constructor(
    baseUrl: string | URL,
    private readonly fetchFn: Fetch,
    readonly credentials: Credentials,
  ) {
    // A base path (`https://host/ttr`) is kept: paths are resolved below it.
    const base = new URL(baseUrl);
    if (!base.pathname.endsWith("/")) base.pathname += "/";
    this.base = base;
  }

  url(path: string, query: Call["query"] = {}): string {
    const url = new URL(path.replace(/^\//, ""), this.base);
    for (const [name, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(name, String(value));
    return url.toString();
  }

  /** Sends the call; resolves with a 2xx (or accepted) Response, rejects with a TtrError otherwise. */
  async send(call: Call): Promise<Response> {
    const headers: Record<string, string> = { ...call.headers };
    if (call.auth !== false) {
      if (this.credentials.apiKey !== undefined) headers["ttr-api-key"] = this.credentials.apiKey;
      else if (this.credentials.sessionCookie !== undefined) headers.cookie = this.credentials.sessionCookie;
    }
    let body = call.body;
    if (call.json !== undefined) {
      headers["content-type"] = "application/json";
      body = JSON.stringify(call.json);
    }
    const url = this.url(call.path, call.query);
    let res: Response;
    try {
      // "manual": a redirect comes back as it is (Node) or opaque (a browser), never followed.
      res = await this.fetchFn(url, { method: call.method, headers, body: body ?? null, signal: call.signal ?? null, redirect: "manual" });
    } catch (err) {
      // An abort is the caller's own doing: it rejects as the signal says.
      if (call.signal?.aborted) throw err;
      throw transportError(call.method, url, err);
    }
    if (res.type === "opaqueredirect" || (res.status >= 300 && res.status < 400)) {
      await res.body?.cancel().catch(() => {});
      throw redirectError(call.method, url, res);
    }
    if (res.ok || call.accept?.includes(res.status)) return res;
    throw await errorFromResponse(res);
  }

  /** Sends the call and reads a JSON answer. */
  async json<T>(call: Call): Promise<T> {
    return this.readJson<T>(call, await this.send(call));
  }

  /**
   * The JSON body of `res`, the answer to `call`. A body that is not JSON is
   * not the api's answer: on a 2xx an HttpError, on an accepted error status
   * (the 503 of /readyz from a proxy's error page) the error of that status.
   */
  async readJson<T>(call: Call, res: Response): Promise<T> {
    const text = await this.readText(call, res);
    try {
      return JSON.parse(text) as T;
    } catch {
      const url = this.url(call.path, call.query);
      throw res.ok ? notJsonError(call.method, url, res, text) : errorFromAnswer(res, text);
    }
  }

  /** The body of `res` as text; a connection that drops while it arrives is `Transport`. */
  async readText(call: Call, res: Response): Promise<string> {
    try {
      return await res.text();
    } catch (err) {
      if (call.signal?.aborted) throw err;
      throw transportError(call.method, this.url(call.path, call.query), err, "lost its answer's body");
    }
  }

  /** Sends the call and drops the (empty) answer. */
  async empty(call: Call): Promise<void> {
    const res = await this.send(call);
    await res.body?.cancel();
  }
}
