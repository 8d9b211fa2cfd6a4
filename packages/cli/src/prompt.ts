// The hidden password prompt. The terminal is put in raw mode so that
// nothing typed is echoed; the keys then arrive as they are, and are read
// here as a line editor would read them.

export interface Typed {
  /** the line so far */
  typed: string;
  /** `line` when Enter or Ctrl-D ended it, `interrupt` on Ctrl-C, null while it goes on */
  end: "line" | "interrupt" | null;
}

const isControl = (code: number) => code < 0x20 || (code >= 0x7f && code <= 0x9f);

/**
 * Where the escape sequence starting at `at` ends (the index of its last
 * character): `ESC [ … final` (arrows, Delete, function keys), `ESC O x`,
 * or ESC and one more key (Alt with a key).
 */
function endOfEscape(chars: string[], at: number): number {
  const csi = chars[at] === "\u009b" ? at : chars[at + 1] === "[" ? at + 1 : -1;
  if (csi >= 0) {
    // parameter and intermediate bytes (0x20-0x3f), then one final byte
    let j = csi + 1;
    while (j < chars.length && chars[j]!.charCodeAt(0) >= 0x20 && chars[j]!.charCodeAt(0) <= 0x3f) j++;
    return Math.min(j, chars.length - 1);
  }
  if (chars[at + 1] === "O") return Math.min(at + 2, chars.length - 1);
  return Math.min(at + 1, chars.length - 1);
}

/**
 * The line after `keys` (one chunk of raw terminal input) were typed onto
 * `typed`. Enter ends it; Ctrl-D ends the input, so it ends the line too (an
 * empty one when nothing was typed); Ctrl-C interrupts; Backspace removes
 * the last character and Ctrl-U all of them. Other control characters and
 * escape sequences (arrow keys, function keys) are no part of a password
 * and are left out.
 */
export function typeKeys(typed: string, keys: string): Typed {
  const chars = [...keys];
  let line = [...typed];
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i]!;
    if (ch === "\r" || ch === "\n" || ch === "\u0004") return { typed: line.join(""), end: "line" };
    if (ch === "\u0003") return { typed: line.join(""), end: "interrupt" };
    if (ch === "\u007f" || ch === "\b") line = line.slice(0, -1);
    else if (ch === "\u0015") line = [];
    else if (ch === "\u001b" || ch === "\u009b") i = endOfEscape(chars, i);
    else if (!isControl(ch.charCodeAt(0))) line.push(ch);
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
    let typed = "";
    const onData = (chunk: Buffer) => {
      const out = typeKeys(typed, chunk.toString("utf8"));
      typed = out.typed;
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
