// Which of a /schedule call's headers are stored and forwarded
// (docs/concepts.md, what the target receives, docs/api/schedule.md): everything except `ttr-`
// headers and headers that only describe the caller's own connection.

export type HeaderPairs = Array<[name: string, value: string]>;

/**
 * Hop-by-hop headers (RFC 9110 §7.6.1) plus the ones that describe this
 * particular message rather than the request: Host (the target's comes from
 * its URL), Content-Length (recomputed from the stored body) and Expect.
 */
const CONNECTION_LEVEL = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authenticate",
  "proxy-authorization",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "host",
  "content-length",
  "expect",
]);

/** Turns node's flat `rawHeaders` into name/value pairs, keeping order, case and repeats. */
export function pairsOf(rawHeaders: readonly string[]): HeaderPairs {
  const pairs: HeaderPairs = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) pairs.push([rawHeaders[i]!, rawHeaders[i + 1]!]);
  return pairs;
}

export function forwardedHeaders(rawHeaders: readonly string[]): HeaderPairs {
  const pairs = pairsOf(rawHeaders);
  // A Connection header may name further headers that are hop-by-hop for this call.
  const named = new Set<string>();
  for (const [name, value] of pairs) {
    if (name.toLowerCase() === "connection") {
      for (const token of value.split(",")) named.add(token.trim().toLowerCase());
    }
  }
  return pairs.filter(([name]) => isForwardedName(name) && !named.has(name.toLowerCase()));
}

/** Whether a header of this name can be stored and sent with a /schedule trigger: neither `ttr-` nor connection-level. */
export function isForwardedName(name: string): boolean {
  const lower = name.toLowerCase();
  return !lower.startsWith("ttr-") && !CONNECTION_LEVEL.has(lower);
}

/**
 * Pairs as an object for display; repeated names are joined with `, `.
 * Every name is an own property, also `__proto__` and names such as
 * `constructor` that a plain object already answers to.
 */
export function headersObject(pairs: HeaderPairs): Record<string, string> {
  const joined = new Map<string, string>();
  for (const [name, value] of pairs) {
    const previous = joined.get(name);
    joined.set(name, previous === undefined ? value : `${previous}, ${value}`);
  }
  return Object.fromEntries(joined);
}

/** Methods whose /schedule body is never read or stored (docs/api/schedule.md). */
export function methodCarriesBody(method: string): boolean {
  return !["GET", "HEAD", "OPTIONS"].includes(method.toUpperCase());
}
