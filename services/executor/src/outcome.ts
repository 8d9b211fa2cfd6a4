// What one attempt produced, and the one place it is classified
// (docs/concepts.md, how a trigger fires).

export type AttemptResult =
  /** A status line and headers arrived and the body was read to its end or to the 10 MB cap. */
  | { kind: "response"; status: number; headers: Record<string, string>; body: string; size: number }
  /**
   * No recordable response: errorMessage is one of the errorMessage (docs/concepts.md)
   * values (Transport, InvalidUrl, Decode, timeout).
   */
  | {
      kind: "network";
      errorMessage: string;
      timedOut: boolean;
      /** What failed, in words (refused, DNS, TLS, a private address…), for the log; the record does not keep it. */
      cause?: string;
    }
  /**
   * The response cannot be recorded: a zero byte within the first 10,240
   * body bytes (docs/concepts.md, how an attempt is recorded), or the body was still
   * arriving at timeout + 30 s (docs/concepts.md, timeouts). Either way the
   * execution stays `started` until the reaper closes it as Executor died.
   * `status` is the answer's, which a dead-letter notification still goes by.
   */
  | { kind: "unrecordable"; status: number };

export type Outcome = "success" | "http_failure" | "network_failure" | "unrecordable";

export function classify(r: AttemptResult): Outcome {
  switch (r.kind) {
    case "response":
      return r.status >= 200 && r.status <= 299 ? "success" : "http_failure";
    case "network":
      // A timeout is a network failure for every retryOn value (docs/concepts.md, timeouts).
      return "network_failure";
    case "unrecordable":
      return "unrecordable";
    default: {
      const unreachable: never = r;
      throw new Error(`unclassified attempt result ${JSON.stringify(unreachable)}`);
    }
  }
}

/**
 * The URL as an error message shows it: user and password (`//user:pass@`)
 * become `***`, so credentials in a target URL are not copied into every
 * failed attempt's stored message. Read from the text itself, since an
 * InvalidUrl error's URL does not parse.
 */
export function withoutCredentials(url: string): string {
  return url.replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/\/)[^/?#]*@/, "$1***@");
}

/** The errorMessage values (docs/concepts.md) an attempt can produce itself. */
export const errorMessages = {
  transport: (method: string, url: string) => `Transport error (${method} ${withoutCredentials(url)})`,
  invalidUrl: (method: string, url: string) => `InvalidUrl error (${method} ${withoutCredentials(url)})`,
  decode: (status: number, method: string, url: string) => `Decode error (${status} ${method} ${withoutCredentials(url)})`,
  timeout: (seconds: number) => `{"errorMessage":"Request timed out after ${seconds}s"}`,
};
