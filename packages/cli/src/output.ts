// What the CLI writes for people. A project's callers choose much of what it
// shows (a trigger's URL, headers, body, custom key, title), and control
// characters among them would act on the operator's terminal: an escape
// sequence can retitle the window, clear the screen or move the cursor, and a
// line break or tab inside a value would fake a row or a column. Text output
// shows them as escapes, and a backslash as `\\`, so that an escape shown was
// never typed as one; --json gives the exact values.

/** Whether a character code is a C0 or C1 control character, or DEL. */
export const isControl = (code: number) => code < 0x20 || (code >= 0x7f && code <= 0x9f);

const NAMED: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t", "\\": "\\\\" };

function escaped(ch: string): string {
  return NAMED[ch] ?? `\\x${ch.charCodeAt(0).toString(16).padStart(2, "0")}`;
}

function escapeWhere(text: string, escapes: (ch: string) => boolean): string {
  let out = "";
  for (const ch of text) out += escapes(ch) ? escaped(ch) : ch;
  return out;
}

/**
 * `value` with every C0 and C1 control character (DEL too) written as an
 * escape (`\n`, `\t`, `\x1b`, `\x9b`) and every backslash doubled: a typed
 * `\x1b` shows as `\\x1b`.
 */
export const shown = (value: string): string => escapeWhere(value, (ch) => ch === "\\" || isControl(ch.charCodeAt(0)));

/**
 * A command's whole text, its own line breaks and column tabs kept: a guard
 * behind `shown`, for any value a command printed without it. It leaves
 * backslashes as they are, or it would double those of `shown`'s escapes.
 */
export const terminalSafe = (text: string): string => escapeWhere(text, (ch) => isControl(ch.charCodeAt(0)) && ch !== "\n" && ch !== "\t");
