// Checks a /declare or /bulk body's JSON syntax and shape in one pass over
// its bytes, without building it. The format (400) comes before the key
// (401), so the api must tell a well-formed body from a malformed one for
// anyone, on up to 10 MiB. JSON.parse of such a body costs 80-400 ms of CPU;
// this scan a fraction, and the body is parsed only once the key is known.
//
// Its verdicts are those of JSON.parse followed by the compiled check of
// schema.ts (services/api/test/body-scan.test.ts holds it to both): JSON as
// JSON.parse reads the UTF-8 text (a repeated key counts with its last
// value; raw control characters only outside strings, as whitespace), the
// shapes as schema.ts has them. Nesting under unknown fields is passed over
// with a stack, not recursion.
import { article, CANCEL_NAMES, CANCEL_SHAPE, type Names, names, pathText, type Shape } from "./scan-shapes.js";

export { BULK_SHAPE, DECLARE_SHAPE, type Shape } from "./scan-shapes.js";

export type ScanResult = { ok: true } | { ok: false; syntax: string } | { ok: false; shape: string };

class SyntaxFail extends Error {}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

class Scanner {
  private i = 0;
  /** Where the scan is, for the message of a shape failure: field names and item indexes, `depth` of them. */
  private readonly path: Array<string | number> = new Array(16).fill("");
  private depth = 0;

  /** The bytes as a plain Uint8Array: V8 reads its elements faster than a Buffer's. */
  private readonly b: Uint8Array;

  constructor(private readonly buffer: Buffer) {
    this.b = new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.length);
  }

  run(shape: Shape): ScanResult {
    try {
      this.ws();
      const reason = this.value(shape);
      this.ws();
      if (this.i < this.b.length) this.fail();
      return reason === null ? { ok: true } : { ok: false, shape: reason };
    } catch (err) {
      if (err instanceof SyntaxFail) return { ok: false, syntax: err.message };
      throw err;
    }
  }

  private fail(): never {
    if (this.i >= this.b.length) throw new SyntaxFail("Unexpected end of JSON input");
    throw new SyntaxFail(`Unexpected character at byte ${this.i}`);
  }

  private ws(): void {
    const b = this.b;
    let i = this.i;
    while (i < b.length) {
      const c = b[i]!;
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
      i++;
    }
    this.i = i;
  }

  private where(extra?: string): string {
    const parts = this.path.slice(0, this.depth);
    if (extra !== undefined) parts.push(extra);
    return pathText(parts);
  }

  /** Scans one value; null when it has the shape, else why not. */
  private value(shape: Shape): string | null {
    const c = this.b[this.i];
    switch (shape.t) {
      case "any":
        this.pass();
        return null;
      case "string":
        if (c === QUOTE) {
          this.string();
          return null;
        }
        this.pass();
        return `${this.where()} must be a string`;
      case "boolean":
        if (c === 0x74 || c === 0x66) {
          this.pass();
          return null;
        }
        this.pass();
        return `${this.where()} must be a boolean`;
      case "array":
        if (c !== 0x5b) {
          this.pass();
          return `${this.where()} must be an array`;
        }
        return this.array(shape.items);
      case "object":
        if (c !== 0x7b) {
          this.pass();
          return `${this.where()} must be an object`;
        }
        return this.object(shape);
      case "cancel":
        if (c === QUOTE) {
          this.string();
          return null;
        }
        if (c !== 0x7b) {
          this.pass();
          return `${this.where()} must be ${CANCEL_SHAPE}`;
        }
        return this.cancel();
    }
  }

  private array(items: Shape): string | null {
    let reason: string | null = null;
    if (this.enter(0x5d)) {
      let n = 0;
      do {
        this.path[this.depth++] = n++;
        const r = this.value(items);
        this.depth--;
        reason ??= r;
      } while (this.more(0x5d));
    }
    return reason;
  }

  /** Steps into an array or object at its opening bracket; false (and out again) when it is empty. */
  private enter(close: number): boolean {
    this.i++;
    this.ws();
    if (this.b[this.i] !== close) return true;
    this.i++;
    return false;
  }

  /** After an element or member: true when a comma says another follows, false past the closing `close`. */
  private more(close: number): boolean {
    this.ws();
    const c = this.b[this.i];
    if (c === 0x2c) {
      this.i++;
      this.ws();
      return true;
    }
    if (c !== close) this.fail();
    this.i++;
    return false;
  }

  // The last key read: its text lies between these bytes.
  private keyStart = 0;
  private keyEnd = 0;

  /** Reads a key and tells which of `known` it is: its index, -1 for another one. */
  private key(known: Names): number {
    const b = this.b;
    if (b[this.i] !== QUOTE) this.fail();
    const start = this.i + 1;
    const escaped = this.string();
    const end = this.i - 1;
    this.keyStart = start;
    this.keyEnd = end;
    if (escaped) return known.names.indexOf(this.keyText(start, end));
    const length = end - start;
    const first = b[start];
    const all = known.bytes;
    for (let k = 0; k < all.length; k++) {
      const want = all[k]!;
      if (want.length !== length || want[0] !== first) continue;
      let j = 1;
      while (j < length && b[start + j] === want[j]) j++;
      if (j === length) return k;
    }
    return -1;
  }

  /** A key's text, escapes decoded as JSON.parse decodes them. */
  private keyText(start: number, end: number): string {
    return JSON.parse(this.buffer.toString("utf8", start - 1, end + 1)) as string;
  }

  private colon(): void {
    this.ws();
    if (this.b[this.i] !== 0x3a) this.fail();
    this.i++;
    this.ws();
  }

  private object(shape: Extract<Shape, { t: "object" }>): string | null {
    const b = this.b;
    const known = names(shape);
    // Named fields by bit: which are present (with their last value), and
    // which of those are out of shape, whose reasons `bad` keeps.
    let present = 0;
    let failing = 0;
    let bad: Array<string | null> | null = null;
    // fields of `values` whose last value is out of shape, by name
    let badValues: Map<string, string> | null = null;
    if (this.enter(0x7d)) {
      do {
        const index = this.key(known);
        this.colon();
        if (index >= 0) {
          this.path[this.depth++] = known.names[index]!;
          const reason = this.value(known.shapes[index]!);
          this.depth--;
          const bit = 1 << index;
          present |= bit;
          if (reason === null) failing &= ~bit;
          else {
            failing |= bit;
            bad ??= [];
            bad[index] = reason;
          }
        } else if (shape.values) {
          const ok = shape.values.t === "string" ? b[this.i] === QUOTE : true;
          const [start, end] = [this.keyStart, this.keyEnd];
          this.pass();
          if (!ok || badValues !== null) {
            const name = this.keyText(start, end);
            if (ok) badValues?.delete(name);
            else {
              badValues ??= new Map();
              badValues.set(name, `${this.where(name)} must be ${article(shape.values.t)}`);
            }
          }
        } else {
          this.pass();
        }
      } while (this.more(0x7d));
    }
    if ((present & known.required) !== known.required) {
      for (const name of shape.required) {
        if ((present & (1 << known.names.indexOf(name))) === 0) return `${this.where(name)} is required`;
      }
    }
    if (failing !== 0 && bad !== null) {
      for (let k = 0; k < known.names.length; k++) if (failing & (1 << k)) return bad[k]!;
    }
    if (badValues !== null) for (const reason of badValues.values()) return reason;
    return null;
  }

  /** A /bulk cancel object: exactly one of id, customKey and tag, each a string; others anything. */
  private cancel(): string | null {
    const b = this.b;
    const present: Array<boolean | undefined> = [undefined, undefined, undefined];
    if (this.enter(0x7d)) {
      do {
        const index = this.key(CANCEL_NAMES);
        this.colon();
        if (index >= 0) present[index] = b[this.i] === QUOTE;
        this.pass();
      } while (this.more(0x7d));
    }
    const given = present.filter((p) => p !== undefined);
    return given.length === 1 && given[0] === true ? null : `${this.where()} must be ${CANCEL_SHAPE}`;
  }

  /** Scans a string from its opening quote past its closing one; whether it held an escape. */
  private string(): boolean {
    const b = this.b;
    const n = b.length;
    let i = this.i + 1;
    let escaped = false;
    for (;;) {
      if (i >= n) {
        this.i = i;
        this.fail();
      }
      const c = b[i]!;
      if (c === QUOTE) break;
      if (c < 0x20) {
        this.i = i;
        this.fail();
      }
      if (c === BACKSLASH) {
        escaped = true;
        const e = b[i + 1];
        if (e === 0x75) {
          for (let h = i + 2; h < i + 6; h++) {
            const x = b[h];
            const hex = x !== undefined && ((x >= 0x30 && x <= 0x39) || (x >= 0x41 && x <= 0x46) || (x >= 0x61 && x <= 0x66));
            if (!hex) {
              this.i = Math.min(h, b.length);
              this.fail();
            }
          }
          i += 6;
          continue;
        }
        if (e === QUOTE || e === BACKSLASH || e === 0x2f || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74) {
          i += 2;
          continue;
        }
        this.i = Math.min(i + 1, b.length);
        this.fail();
      }
      i++;
    }
    this.i = i + 1;
    return escaped;
  }

  private literal(word: string): void {
    for (let k = 0; k < word.length; k++) {
      if (this.b[this.i + k] !== word.charCodeAt(k)) {
        this.i += k;
        this.fail();
      }
    }
    this.i += word.length;
  }

  private number(): void {
    const b = this.b;
    const digit = (c: number | undefined) => c !== undefined && c >= 0x30 && c <= 0x39;
    if (b[this.i] === 0x2d) this.i++;
    if (b[this.i] === 0x30) this.i++;
    else if (digit(b[this.i])) while (digit(b[this.i])) this.i++;
    else this.fail();
    if (b[this.i] === 0x2e) {
      this.i++;
      if (!digit(b[this.i])) this.fail();
      while (digit(b[this.i])) this.i++;
    }
    if (b[this.i] === 0x65 || b[this.i] === 0x45) {
      this.i++;
      if (b[this.i] === 0x2b || b[this.i] === 0x2d) this.i++;
      if (!digit(b[this.i])) this.fail();
      while (digit(b[this.i])) this.i++;
    }
  }

  /** Passes over one value of any kind, nested arrays and objects included, with a stack instead of recursion. */
  private pass(): void {
    const b = this.b;
    // 0x5d or 0x7d: what closes each open container
    const open: number[] = [];
    for (;;) {
      this.ws();
      const c = b[this.i];
      if (c === QUOTE) this.string();
      else if (c === 0x7b || c === 0x5b) {
        this.i++;
        this.ws();
        const close = c === 0x7b ? 0x7d : 0x5d;
        if (b[this.i] === close) {
          this.i++;
        } else {
          open.push(close);
          if (close === 0x7d) this.memberKey();
          continue;
        }
      } else if (c === 0x74) this.literal("true");
      else if (c === 0x66) this.literal("false");
      else if (c === 0x6e) this.literal("null");
      else if (c === 0x2d || (c !== undefined && c >= 0x30 && c <= 0x39)) this.number();
      else this.fail();
      // after a value: close containers, or go on to the next member
      for (;;) {
        if (open.length === 0) return;
        this.ws();
        const next = b[this.i];
        const close = open[open.length - 1]!;
        if (next === 0x2c) {
          this.i++;
          if (close === 0x7d) {
            this.ws();
            this.memberKey();
          }
          break;
        }
        if (next === close) {
          this.i++;
          open.pop();
          continue;
        }
        this.fail();
      }
    }
  }

  /** A member's key and its colon, inside an object being skipped. */
  private memberKey(): void {
    if (this.b[this.i] !== QUOTE) this.fail();
    this.string();
    this.colon();
  }
}

/** The verdict on a body: well-formed JSON of `shape`, or why not. */
export function scanBody(bytes: Buffer, shape: Shape): ScanResult {
  return new Scanner(bytes).run(shape);
}
