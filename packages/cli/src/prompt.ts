// The hidden password prompt. The terminal is put in raw mode so that
// nothing typed is echoed; the keys then arrive as they are, and are read
// here as a line editor would read them.
import { StringDecoder } from "node:string_decoder";
import { isControl } from "./output.js";

export interface Typed {
  /** the line so far */
  typed: string;
  /** `line` when Enter or Ctrl-D ended it, `interrupt` on Ctrl-C, null while it goes on */
  end: "line" | "interrupt" | null;
  /**
   * The start of an escape sequence that the keys ended inside of (`ESC`,
   * `ESC [`, `ESC [ 1 ;`), for the next chunk to go on with; absent when
   * there is none.
   */
  unfinished?: string;
}

const ESC = "\u001b";
const CSI = "\u009b";

const code = (ch: string | undefined) => (ch === undefined ? -1 : ch.charCodeAt(0));

/**
 * Where the escape sequence starting at `at` ends (the index of its last
 * character), or null when `chars` end inside it: `ESC [ … final` or
 * `CSI … final` (arrows, Delete, function keys), `ESC O x`, or ESC and one
 * more key (Alt with a key).
 */
function endOfEscape(chars: string[], at: number): number | null {
  const csi = chars[at] === CSI ? at : chars[at + 1] === "[" ? at + 1 : -1;
  if (csi >= 0) {
    // parameter and intermediate bytes (0x20-0x3f), then one final byte (0x40-0x7e)
    let j = csi + 1;
    while (code(chars[j]) >= 0x20 && code(chars[j]) <= 0x3f) j++;
    if (j === chars.length) return null;
    // anything else is no part of it (Enter, say): the sequence ends before it
    return code(chars[j]) >= 0x40 && code(chars[j]) <= 0x7e ? j : j - 1;
  }
  if (at + 1 === chars.length) return null;
  // ESC before another sequence (Alt with an arrow, in some terminals): that one is read on its own
  if (chars[at + 1] === ESC || chars[at + 1] === CSI) return at;
  if (chars[at + 1] === "O") return at + 2 < chars.length ? at + 2 : null;
  return at + 1;
}

/**
 * The line after `keys` (one chunk of raw terminal input) were typed onto
 * `typed`, `unfinished` the escape sequence the chunk before ended inside
 * of. Enter ends it; Ctrl-D ends the input, so it ends the line too (an
 * empty one when nothing was typed); Ctrl-C interrupts; Backspace removes
 * the last character and Ctrl-U all of them. Other control characters and
 * escape sequences (arrow keys, function keys) are no part of a password
 * and are left out, also when a sequence comes split over two chunks.
 */
export function typeKeys(typed: string, keys: string, unfinished = ""): Typed {
  // A chunk that was ESC alone, not followed by `[` or `O`, was the Escape
  // key (a terminal sends Alt with a key in one chunk): the key after it is typed.
  const pending = unfinished === ESC && keys !== "" && keys[0] !== "[" && keys[0] !== "O" ? "" : unfinished;
  const chars = [...pending, ...keys];
  let line = [...typed];
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i]!;
    if (ch === "\r" || ch === "\n" || ch === "\u0004") return { typed: line.join(""), end: "line" };
    if (ch === "\u0003") return { typed: line.join(""), end: "interrupt" };
    if (ch === "\u007f" || ch === "\b") line = line.slice(0, -1);
    else if (ch === "\u0015") line = [];
    else if (ch === ESC || ch === CSI) {
      const end = endOfEscape(chars, i);
      if (end === null) return { typed: line.join(""), end: null, unfinished: chars.slice(i).join("") };
      i = end;
    } else if (!isControl(ch.charCodeAt(0))) line.push(ch);
  }
  return { typed: line.join(""), end: null };
}

/** Asks for a line at the terminal without echoing it; Ctrl-C ends the process (exit 130). */
export function promptHidden(question: string): Promise<string> {
  const stdin = process.stdin;
  process.stderr.write(question);
  stdin.setRawMode(true);
  stdin.resume();
  return new Promise((resolve) => {
    // a character's UTF-8 bytes may come in two chunks too
    const decoder = new StringDecoder("utf8");
    let typed = "";
    let unfinished: string | undefined;
    const onData = (chunk: Buffer) => {
      const out = typeKeys(typed, decoder.write(chunk), unfinished);
      ({ typed, unfinished } = out);
      if (out.end === null) return;
      stdin.setRawMode(false);
      stdin.pause();
      stdin.off("data", onData);
      process.stderr.write("\n");
      if (out.end === "interrupt") process.exit(130);
      resolve(typed);
    };
    stdin.on("data", onData);
  });
}
