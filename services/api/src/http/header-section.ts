// The 16 KiB limit on a request's header section (docs/api/errors.md, 431).
import type http from "node:http";

/** A header section above this size gets 431 with an empty body. */
export const MAX_HEADER_BYTES = 16 * 1024;

/** The ttr-error reason of that 431. */
export const HEADERS_TOO_LARGE = `Request headers larger than ${MAX_HEADER_BYTES / 1024} KiB`;

/** The shortest header line: a one-character name and an empty value, `a: ` and CRLF. */
const SHORTEST_HEADER_LINE = 5;

/**
 * How many header lines Node keeps of a request (http.Server's
 * maxHeadersCount). Node drops the lines past its count without a word
 * (about 1,000 by default): a trigger would be stored without some of its
 * headers, and a `ttr-` header sent after them would go unseen. This many
 * lines of the shortest kind already count more than MAX_HEADER_BYTES, so
 * only a request refused with 431 can lose lines.
 */
export const MAX_HEADER_LINES = Math.ceil((MAX_HEADER_BYTES + 1) / SHORTEST_HEADER_LINE);

/**
 * The size of a request's header section as counted against
 * MAX_HEADER_BYTES: the request line (`POST /schedule HTTP/1.1` and CRLF),
 * each header line written `name: value` and CRLF, and the empty line that
 * ends the section. That is every byte a client sends before the body when
 * it writes one space after each colon, as clients do; Node's parser drops
 * any other whitespace around a value before anything here sees it.
 *
 * Node's own maxHeaderSize counts only the target, the names and the values,
 * so on its own it lets thousands of short lines, far over 16 KiB, through.
 * It stays as the bound on what the parser holds before the section ends,
 * and never refuses what this count accepts (it counts a part of the same
 * bytes), except values padded with trailing whitespace, which it counts and
 * this does not.
 */
export function headerSectionBytes(req: http.IncomingMessage): number {
  // Node reads the request line and headers as Latin-1, one character a byte.
  let bytes = `${req.method} ${req.url} HTTP/${req.httpVersion}\r\n`.length + 2;
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) bytes += raw[i]!.length + 2 + raw[i + 1]!.length + 2;
  return bytes;
}

/** Whether a request's header section is over the limit (see headerSectionBytes). */
export function headersTooLarge(req: http.IncomingMessage): boolean {
  return headerSectionBytes(req) > MAX_HEADER_BYTES;
}
