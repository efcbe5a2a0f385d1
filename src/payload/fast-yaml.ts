/**
 * A fast path for the YAML that real payloads are made of: block mappings and sequences, plain, quoted
 * and block scalars, and flow collections of scalars. It builds the same Go value as the full path
 * (`yaml` package + `yaml-decode.ts`) about ten times faster, because loading a payload is dominated by
 * YAML parsing. It never reports errors: on anything outside its subset (anchors, tags, complex keys,
 * tabs, odd indentation, suspicious continuations, syntax errors) it gives up and the full path decides,
 * so results and error messages stay those of the full path. Differential tests keep the two in step.
 * @internal
 */
import type { GoValue } from "./go-json.js";
import { BAIL, bail, FlowScanner, Lines, NOT_PLAIN_START, restIsBlank, scanQuoted } from "./fast-yaml-scan.js";
import { keyStringOrUndefined, resolvePlainValue } from "./yaml-decode.js";

/** The decoded document and the 1-based line (within the chunk) of its first content. */
export interface FastYamlResult {
  readonly value: GoValue;
  readonly line: number;
}

// What the subset never handles: tabs, CR, other controls, NEL/LS/PS (line breaks in YAML 1.1), BOM,
// non-characters, and `---` / `...` at a line start (they delimit documents even inside a scalar).
const UNSUPPORTED = /[\t\r\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]|^(?:---|\.\.\.)/m;
// One pass finds both the above and any surrogate; only then is the slower lone-surrogate check run.
const SUSPECT = /[\t\r\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff]|^(?:---|\.\.\.)/m;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const MAX_KEY_LENGTH = 1024;

/** Decodes one YAML document (a chunk between `---` separators), or undefined to use the full path. */
export function fastYamlToGo(text: string): FastYamlResult | undefined {
  if (SUSPECT.test(text) && (UNSUPPORTED.test(text) || LONE_SURROGATE.test(text))) return undefined;
  try {
    return new FastParser(text).document();
  } catch (e) {
    // Deep nesting exhausts the stack here as in the full path, which then reports it properly.
    if (e === BAIL || e instanceof RangeError) return undefined;
    throw e;
  }
}

class FastParser {
  readonly #lines: Lines;
  readonly #text: string;
  readonly #starts: readonly number[];
  readonly #ends: readonly number[];
  /** The last line consumed by the node parsed most recently. */
  #li = 0;

  constructor(text: string) {
    this.#lines = new Lines(text);
    this.#text = text;
    this.#starts = this.#lines.starts;
    this.#ends = this.#lines.ends;
  }

  document(): FastYamlResult {
    const first = this.#nextContentLine(0);
    if (first < 0) return { value: null, line: 1 };
    this.#li = first;
    const indent = this.#indent(first);
    const value = this.#node(first, this.#starts[first]! + indent, -1);
    // Anything after the top-level node (less-indented content, `...`) is for the full path to judge.
    if (this.#nextContentLine(this.#li + 1) >= 0) bail();
    return { value, line: first + 1 };
  }

  // ---- lines ------------------------------------------------------------------------------------

  #indent(li: number): number {
    return this.#lines.indent(li);
  }

  /** Blank or comment-only line. */
  #isBlank(li: number): boolean {
    const i = this.#starts[li]! + this.#indent(li);
    return i >= this.#ends[li]! || this.#text.charCodeAt(i) === 35; // '#'
  }

  /** First line at or after `li` with content, or -1. */
  #nextContentLine(li: number): number {
    for (let j = li; j < this.#starts.length; j++) if (!this.#isBlank(j)) return j;
    return -1;
  }

  /** True when `pos` on line `li` holds nothing but spaces and an optional comment. */
  #restIsBlank(li: number, pos: number): boolean {
    return restIsBlank(this.#lines, li, pos);
  }

  #isSeqIndicator(pos: number, end: number): boolean {
    return this.#text.charCodeAt(pos) === 45 && (pos + 1 >= end || this.#text.charCodeAt(pos + 1) === 32); // "- "
  }

  #quoted(li: number, pos: number, parent: number): { value: string; line: number; pos: number } {
    return scanQuoted(this.#lines, li, pos, parent);
  }

  // ---- block structure --------------------------------------------------------------------------

  /** A node whose first character is at offset `pos` of line `li`; its content must be indented past `parent`. */
  #node(li: number, pos: number, parent: number): GoValue {
    const t = this.#text;
    const end = this.#ends[li]!;
    const col = pos - this.#starts[li]!;
    const c = t[pos]!;
    if (this.#isSeqIndicator(pos, end)) return this.#sequence(li, col);
    if (c === '"' || c === "'") {
      const q = this.#quoted(li, pos, parent);
      if (q.line === li && this.#keyColonAt(li, q.pos) >= 0) return this.#mapping(li, col);
      if (!this.#restIsBlank(q.line, q.pos)) bail();
      this.#li = q.line;
      return q.value;
    }
    if (c === "[" || c === "{") return this.#flowValue(li, pos, parent);
    if (c === "|" || c === ">") return this.#blockScalar(li, pos, parent);
    if (NOT_PLAIN_START.has(c) && c !== "-") bail(); // `-x` is plain; `- ` was handled above
    if (this.#plainKeyEnd(li, pos) >= 0) return this.#mapping(li, col);
    return this.#plain(li, pos, parent);
  }

  /** A value that starts on the same line, after `key: ` (so never a mapping or a sequence). */
  #inlineValue(li: number, pos: number, parent: number): GoValue {
    const t = this.#text;
    const c = t[pos]!;
    if (c === '"' || c === "'") {
      const q = this.#quoted(li, pos, parent);
      if (!this.#restIsBlank(q.line, q.pos)) bail();
      this.#li = q.line;
      return q.value;
    }
    if (c === "[" || c === "{") return this.#flowValue(li, pos, parent);
    if (c === "|" || c === ">") return this.#blockScalar(li, pos, parent);
    if (NOT_PLAIN_START.has(c) && !(c === "-" && !this.#isSeqIndicator(pos, this.#ends[li]!))) bail();
    if (this.#plainKeyEnd(li, pos) >= 0) bail(); // `a: b: c` is an error in YAML
    return this.#plain(li, pos, parent);
  }

  /** The value after `key:` (or `-`) when the rest of that line is empty: the next, more indented node. */
  #blockValue(li: number, parent: number, inMapping: boolean): GoValue {
    const next = this.#nextContentLine(li + 1);
    this.#li = li;
    if (next < 0) return null;
    const indent = this.#indent(next);
    const pos = this.#starts[next]! + indent;
    if (indent > parent) return this.#node(next, pos, parent);
    // A sequence may sit at its key's own indentation.
    if (inMapping && indent === parent && this.#isSeqIndicator(pos, this.#ends[next]!)) return this.#sequence(next, indent);
    return null;
  }

  #mapping(li: number, indent: number): Map<string, GoValue> {
    const t = this.#text;
    const map = new Map<string, GoValue>();
    let line = li;
    let pos = this.#starts[li]! + indent;
    for (;;) {
      let key: GoValue;
      let after: number;
      const c = t[pos]!;
      if (c === '"' || c === "'") {
        const q = this.#quoted(line, pos, indent);
        if (q.line !== line) bail();
        after = this.#keyColonAt(line, q.pos);
        key = q.value;
      } else {
        if (NOT_PLAIN_START.has(c) && !(c === "-" && !this.#isSeqIndicator(pos, this.#ends[line]!))) bail();
        const keyEnd = this.#plainKeyEnd(line, pos);
        if (keyEnd < 0) bail();
        const raw = t.slice(pos, keyEnd).trimEnd();
        if (raw === "<<") bail(); // merge keys
        key = resolvePlainValue(raw);
        after = keyEnd + 1;
      }
      if (after < 0 || after - pos > MAX_KEY_LENGTH) bail();
      const name = keyStringOrUndefined(key);
      if (name === undefined) bail();
      let v = after;
      const end = this.#ends[line]!;
      while (v < end && t.charCodeAt(v) === 32) v++;
      const value = v >= end || t.charCodeAt(v) === 35 ? this.#blockValue(line, indent, true) : this.#inlineValue(line, v, indent);
      map.set(name, value);

      const next = this.#nextContentLine(this.#li + 1);
      if (next < 0) {
        this.#li = this.#starts.length - 1;
        return map;
      }
      const n = this.#indent(next);
      if (n < indent) return map;
      if (n > indent) bail();
      pos = this.#starts[next]! + n;
      if (this.#isSeqIndicator(pos, this.#ends[next]!)) bail();
      line = next;
      this.#li = next;
    }
  }

  #sequence(li: number, indent: number): GoValue[] {
    const t = this.#text;
    const items: GoValue[] = [];
    let line = li;
    for (;;) {
      const end = this.#ends[line]!;
      let pos = this.#starts[line]! + indent + 1;
      while (pos < end && t.charCodeAt(pos) === 32) pos++;
      const item = pos >= end || t.charCodeAt(pos) === 35 ? this.#blockValue(line, indent, false) : this.#node(line, pos, indent);
      items.push(item);

      const next = this.#nextContentLine(this.#li + 1);
      if (next < 0) {
        this.#li = this.#starts.length - 1;
        return items;
      }
      const n = this.#indent(next);
      if (n < indent) return items;
      if (n > indent) bail();
      if (!this.#isSeqIndicator(this.#starts[next]! + n, this.#ends[next]!)) return items;
      line = next;
      this.#li = next;
    }
  }

  /**
   * Where a plain implicit key ends (the `:` followed by a space or the line end), or -1 when the line
   * from `pos` is not `key: …`. A comment (` #`) before it means no key.
   */
  #plainKeyEnd(li: number, pos: number): number {
    const t = this.#text;
    const end = this.#ends[li]!;
    for (let i = pos; i < end; i++) {
      const ch = t.charCodeAt(i);
      if (ch === 58 && (i + 1 >= end || t.charCodeAt(i + 1) === 32)) return i; // ':'
      if (ch === 35 && i > pos && t.charCodeAt(i - 1) === 32) return -1; // ' #'
    }
    return -1;
  }

  /** After a quoted key: the offset just past `:` (spaces allowed before it), or -1. */
  #keyColonAt(li: number, pos: number): number {
    const t = this.#text;
    const end = this.#ends[li]!;
    let i = pos;
    while (i < end && t.charCodeAt(i) === 32) i++;
    if (i < end && t.charCodeAt(i) === 58 && (i + 1 >= end || t.charCodeAt(i + 1) === 32)) return i + 1;
    return -1;
  }

  // ---- scalars ----------------------------------------------------------------------------------

  /** A plain scalar, folded over continuation lines indented past `parent`. */
  #plain(li: number, pos: number, parent: number): GoValue {
    const first = this.#plainLine(li, pos);
    let value = first.text;
    let line = li;
    let pendingBreaks = 0;
    let ended = first.comment;
    for (let j = li + 1; !ended && j < this.#starts.length; j++) {
      const start = this.#starts[j]!;
      const n = this.#indent(j);
      if (start + n >= this.#ends[j]!) {
        pendingBreaks++;
        continue;
      }
      if (n <= parent) break;
      const c = this.#text[start + n]!;
      if (c === "#") break;
      // A continuation line may start with `- ` (it is text there, as in real CRD descriptions), but
      // not with `: `.
      if (c === ":" && (start + n + 1 >= this.#ends[j]! || this.#text[start + n + 1] === " ")) bail();
      const next = this.#plainLine(j, start + n);
      value += pendingBreaks === 0 ? ` ${next.text}` : "\n".repeat(pendingBreaks) + next.text;
      pendingBreaks = 0;
      ended = next.comment;
      line = j;
    }
    this.#li = line;
    return resolvePlainValue(value);
  }

  /** One line of a plain scalar: up to a comment, trailing spaces trimmed; `: ` inside is not ours. */
  #plainLine(li: number, pos: number): { text: string; comment: boolean } {
    const t = this.#text;
    const end = this.#ends[li]!;
    let stop = end;
    let comment = false;
    for (let i = pos; i < end; i++) {
      const ch = t.charCodeAt(i);
      if (ch === 35 && i > pos && t.charCodeAt(i - 1) === 32) {
        stop = i;
        comment = true;
        break;
      }
      if (ch === 58 && (i + 1 >= end || t.charCodeAt(i + 1) === 32)) bail();
    }
    return { text: t.slice(pos, stop).trimEnd(), comment };
  }

  /** `|` or `>` with optional chomping indicator; explicit indentation indicators are left to the full path. */
  #blockScalar(li: number, pos: number, parent: number): string {
    const t = this.#text;
    const folded = t[pos] === ">";
    let i = pos + 1;
    const chomp = t[i] === "-" || t[i] === "+" ? t[i++] : "";
    if (!this.#restIsBlank(li, i)) bail();
    const lines: string[] = [];
    let indent = -1;
    let last = li;
    let maxLeadingEmpty = 0;
    for (let j = li + 1; j < this.#starts.length; j++) {
      const start = this.#starts[j]!;
      const end = this.#ends[j]!;
      const n = this.#indent(j);
      if (start + n >= end) {
        // An empty line; spaces beyond the indentation would be content, which we leave alone.
        if (indent < 0) maxLeadingEmpty = Math.max(maxLeadingEmpty, n);
        else if (n > indent) bail();
        lines.push("");
        last = j;
        continue;
      }
      if (indent < 0) {
        if (n <= parent || n < maxLeadingEmpty) bail();
        indent = n;
      }
      if (n < indent) break;
      if (folded && n > indent) bail(); // more-indented lines keep their breaks; not ours
      lines.push(t.slice(start + indent, end));
      last = j;
    }
    if (indent < 0) bail();
    if (last === this.#starts.length - 1 && !this.#lines.endsWithNewline) bail();
    let trailing = 0;
    while (lines.length > 0 && lines[lines.length - 1] === "") {
      lines.pop();
      trailing++;
    }
    // Trailing empty lines belong to the scalar only with `+`; they were consumed either way.
    this.#li = last;
    let body: string;
    if (folded) {
      // Leading empty lines are kept; between text lines one break folds to a space, n empty lines to n breaks.
      body = "";
      let empties = 0;
      let started = false;
      for (const l of lines) {
        if (l === "") {
          empties++;
          continue;
        }
        body += !started || empties > 0 ? "\n".repeat(empties) + l : ` ${l}`;
        started = true;
        empties = 0;
      }
    } else {
      body = lines.join("\n");
    }
    if (chomp === "-") return body;
    if (chomp === "+") return `${body}\n${"\n".repeat(trailing)}`;
    return `${body}\n`;
  }

  // ---- flow collections -------------------------------------------------------------------------

  /** A flow collection as a block value; nothing but a comment may follow it on its last line. */
  #flowValue(li: number, pos: number, parent: number): GoValue {
    const flow = new FlowScanner(this.#lines, li, pos, parent);
    const value = flow.node();
    if (!this.#restIsBlank(flow.line, flow.pos)) bail();
    this.#li = flow.line;
    return value;
  }
}
