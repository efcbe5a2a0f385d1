/**
 * Building blocks of the fast YAML path (see `fast-yaml.ts`): the chunk's lines, quoted scalars and flow
 * collections. Everything here gives up by throwing {@link BAIL}; only `fast-yaml.ts` catches it.
 * @internal
 */
import type { GoValue } from "./go-json.js";
import { keyStringOrUndefined, resolvePlainValue } from "./yaml-decode.js";

/**
 * Thrown to give up; never escapes `fastYamlToGo`. One preallocated instance, because giving up is
 * routine and must not cost a stack trace each time.
 */
export const BAIL = new Error("the fast YAML path gives up on this document");

/** Gives up on the document: the full path will decide. */
export function bail(): never {
  throw BAIL;
}

/** A plain scalar may not start with these (or they mean something we leave to the full path). */
export const NOT_PLAIN_START: ReadonlySet<string> = new Set([..."-?:,[]{}#&*!|>'\"%@`"]);

/** True when line `li` holds nothing from `pos` on but spaces and an optional comment. */
export function restIsBlank(lines: Lines, li: number, pos: number): boolean {
  const end = lines.ends[li]!;
  let i = pos;
  while (i < end && lines.text.charCodeAt(i) === 32) i++;
  if (i >= end) return true;
  // A comment needs white space before it.
  return lines.text.charCodeAt(i) === 35 && i > pos;
}

/** The chunk split into lines once; every scanner works on offsets into the one string. */
export class Lines {
  readonly starts: number[] = [];
  readonly ends: number[] = [];
  readonly endsWithNewline: boolean;

  constructor(readonly text: string) {
    let pos = 0;
    while (pos < text.length) {
      const nl = text.indexOf("\n", pos);
      const end = nl < 0 ? text.length : nl;
      this.starts.push(pos);
      this.ends.push(end);
      pos = end + 1;
    }
    this.endsWithNewline = text.endsWith("\n");
  }

  /** Leading spaces of line `li`. */
  indent(li: number): number {
    const start = this.starts[li]!;
    const end = this.ends[li]!;
    let i = start;
    while (i < end && this.text.charCodeAt(i) === 32) i++;
    return i - start;
  }
}

/**
 * A single- or double-quoted scalar starting at `pos` (the quote), possibly over several lines
 * (folded as YAML does). Returns the value and the position just past the closing quote.
 */
export function scanQuoted(lines: Lines, li: number, pos: number, parent: number): { value: string; line: number; pos: number } {
  const t = lines.text;
  const double = t[pos] === '"';
  let out = "";
  let keepFrom = 0; // escapes before this index of `out` survive trailing-space trimming
  let line = li;
  let i = pos + 1;
  for (;;) {
    const end = lines.ends[line]!;
    // Copy a run of ordinary characters at once.
    let j = i;
    while (j < end) {
      const ch = t.charCodeAt(j);
      if (ch === 39 || (double && (ch === 34 || ch === 92))) break;
      j++;
    }
    out += t.slice(i, j);
    i = j;
    if (i < end) {
      const ch = t[i]!;
      if (!double) {
        if (t[i + 1] === "'") {
          out += "'";
          keepFrom = out.length;
          i += 2;
          continue;
        }
        return { value: out, line, pos: i + 1 };
      }
      if (ch === '"') return { value: out, line, pos: i + 1 };
      if (ch === "'") {
        out += "'";
        i++;
        continue;
      }
      if (i + 1 >= end) bail(); // an escaped line break
      const esc = decodeEscape(t, i + 1);
      out += esc.text;
      keepFrom = out.length;
      i = esc.next;
      continue;
    }
    // Line break inside the scalar: trim, then fold (one break → space, n empty lines → n newlines).
    let k = out.length;
    while (k > keepFrom && out.charCodeAt(k - 1) === 32) k--;
    out = out.slice(0, k);
    let empty = 0;
    for (;;) {
      line++;
      if (line >= lines.starts.length) bail();
      const n = lines.indent(line);
      if (lines.starts[line]! + n < lines.ends[line]!) {
        if (n <= parent) bail();
        i = lines.starts[line]! + n;
        break;
      }
      empty++;
    }
    out += empty === 0 ? " " : "\n".repeat(empty);
    keepFrom = out.length;
  }
}

/** Double-quoted escapes (YAML's set that yaml.v2 and the yaml package agree on). */
function decodeEscape(t: string, i: number): { text: string; next: number } {
  const c = t[i];
  const simple: Record<string, string> = {
    "0": "\0",
    a: "\x07",
    b: "\b",
    t: "\t",
    n: "\n",
    v: "\v",
    f: "\f",
    r: "\r",
    e: "\x1b",
    " ": " ",
    '"': '"',
    "/": "/",
    "\\": "\\",
    N: "\x85",
    _: "\xa0",
  };
  if (c !== undefined && Object.hasOwn(simple, c)) return { text: simple[c]!, next: i + 1 };
  const width = c === "x" ? 2 : c === "u" ? 4 : 0;
  if (width === 0) bail(); // \U, \L, \P, line continuations: rare, left to the full path
  const hex = t.slice(i + 1, i + 1 + width);
  if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== width) bail();
  const code = parseInt(hex, 16);
  if (code >= 0xd800 && code <= 0xdfff) bail();
  return { text: String.fromCharCode(code), next: i + 1 + width };
}

/** Flow collections (`[a, "b"]`, `{k: v}`), possibly over several lines indented past `parent`. */
export class FlowScanner {
  /** Where scanning is: after {@link node}, just past the collection. */
  line: number;
  pos: number;

  readonly #lines: Lines;
  readonly #parent: number;
  private readonly t: string;
  private readonly starts: readonly number[];
  private readonly ends: readonly number[];

  constructor(lines: Lines, line: number, pos: number, parent: number) {
    this.#lines = lines;
    this.#parent = parent;
    this.t = lines.text;
    this.starts = lines.starts;
    this.ends = lines.ends;
    this.line = line;
    this.pos = pos;
  }

  /** The collection or scalar at the current position. */
  node(): GoValue {
    const c = this.t[this.pos];
    if (c === "[") return this.#sequence();
    if (c === "{") return this.#mapping();
    if (c === '"' || c === "'") return this.#quoted();
    return this.#plain();
  }

  /** Skips spaces, line breaks and comments; continuation lines must be indented past the parent. */
  #space(): void {
    for (;;) {
      const end = this.ends[this.line]!;
      while (this.pos < end && this.t.charCodeAt(this.pos) === 32) this.pos++;
      if (this.pos < end && this.t.charCodeAt(this.pos) !== 35) return;
      if (this.pos < end && this.pos > 0 && this.t.charCodeAt(this.pos - 1) !== 32 && this.pos !== this.starts[this.line]) bail();
      this.line++;
      if (this.line >= this.starts.length) bail();
      this.pos = this.starts[this.line]!;
      const n = this.#lines.indent(this.line);
      if (this.pos + n < this.ends[this.line]! && n <= this.#parent) bail();
    }
  }

  #sequence(): GoValue[] {
    const items: GoValue[] = [];
    this.pos++;
    this.#space();
    if (this.t[this.pos] === "]") {
      this.pos++;
      return items;
    }
    for (;;) {
      items.push(this.node());
      this.#space();
      const c = this.t[this.pos];
      this.pos++;
      if (c === "]") return items;
      if (c !== ",") bail();
      this.#space();
      if (this.t[this.pos] === "]") bail(); // trailing comma
    }
  }

  #mapping(): Map<string, GoValue> {
    const map = new Map<string, GoValue>();
    this.pos++;
    this.#space();
    if (this.t[this.pos] === "}") {
      this.pos++;
      return map;
    }
    for (;;) {
      const c = this.t[this.pos];
      if (c === "[" || c === "{") bail();
      const keyLine = this.line;
      const key = this.node();
      if (this.line !== keyLine) bail();
      const name = keyStringOrUndefined(key);
      if (name === undefined) bail();
      if (this.t[this.pos] !== ":") bail();
      this.pos++;
      const after = this.t[this.pos];
      if (after !== undefined && after !== " " && this.pos < this.ends[this.line]! && !(c === '"' || c === "'")) bail();
      this.#space();
      const v = this.t[this.pos];
      if (v === "," || v === "}") bail(); // `{a: }`: an empty value
      map.set(name, this.node());
      this.#space();
      const sep = this.t[this.pos];
      this.pos++;
      if (sep === "}") return map;
      if (sep !== ",") bail();
      this.#space();
      if (this.t[this.pos] === "}") bail();
    }
  }

  #quoted(): string {
    const q = scanQuoted(this.#lines, this.line, this.pos, this.#parent);
    this.line = q.line;
    this.pos = q.pos;
    return q.value;
  }

  /** A plain scalar in flow context: ends at `,[]{}`, `: `, ` #` or the line end (multi-line ones are not ours). */
  #plain(): GoValue {
    const t = this.t;
    const c = t[this.pos];
    if (c === undefined || NOT_PLAIN_START.has(c)) {
      // `-` starts a plain scalar only when text follows; `-`, `- ` or `-]` would be a block sequence.
      if (!(c === "-" && this.pos + 1 < this.ends[this.line]! && !" ,[]{}".includes(t[this.pos + 1]!))) bail();
    }
    const start = this.pos;
    const end = this.ends[this.line]!;
    let i = start;
    for (; i < end; i++) {
      const ch = t[i]!;
      if (ch === "," || ch === "[" || ch === "]" || ch === "{" || ch === "}") break;
      if (ch === ":" && (i + 1 >= end || " ,[]{}".includes(t[i + 1]!))) break;
      if (ch === "#" && t[i - 1] === " ") break;
    }
    const text = t.slice(start, i).trimEnd();
    this.pos = start + text.length;
    if (i >= end) {
      // The scalar reaches the line end: if the next content continues it, it is multi-line.
      const save = { line: this.line, pos: this.pos };
      this.#space();
      const next = t[this.pos];
      if (next !== "," && next !== "]" && next !== "}" && next !== ":") bail();
      this.line = save.line;
      this.pos = save.pos;
    }
    return resolvePlainValue(text);
  }
}
