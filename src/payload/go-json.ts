/**
 * Go `encoding/json` compatibility: the payload hash is computed over bytes the CVO produced with Go, so
 * YAML documents must be re-encoded exactly as `json.Marshal` would, and JSON syntax errors read like Go's.
 * @internal
 */

/**
 * A decoded value as Go holds it after `yaml.v2` → `interface{}`: integers stay exact (`bigint`), maps
 * use `Map` so keys such as `__proto__` are plain data.
 */
export type GoValue = null | boolean | number | bigint | string | GoValue[] | Map<string, GoValue>;

/** Thrown when a value has no JSON form (Go: `json: unsupported value: NaN`). */
export class UnsupportedValueError extends Error {}

/** A value nested deeper than marshalling allows. */
export class MaxDepthError extends UnsupportedValueError {}

/**
 * Orders strings by UTF-8 bytes (Go's `sort.Strings`). UTF-16 order differs only when a surrogate meets
 * a BMP character at or above U+E000, and the surrogate (a code point ≥ U+10000) must sort last.
 */
export function compareGoStrings(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs !== ys) return xs ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}

const HEX = "0123456789abcdef";

/**
 * Quotes a string like Go's JSON encoder with HTML escaping on: `<`, `>`, `&`, U+2028 and U+2029 become
 * `\u` escapes, other control characters use `\n`, `\r`, `\t` or `\u00XX` (Go before 1.22 had no `\b`/`\f`
 * short forms; we follow the CVO revision the spec describes). Lone surrogates become U+FFFD, as invalid
 * UTF-8 does in Go.
 */
export function goQuoteJson(s: string): string {
  // Most strings need no escaping at all; checking that natively is much cheaper than the loop below.
  if (!NEEDS_ESCAPE.test(s)) return `"${s}"`;
  let out = '"';
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    let esc: string | undefined;
    if (c < 0x20 || c === 0x22 || c === 0x5c || c === 0x3c || c === 0x3e || c === 0x26) {
      if (c === 0x22) esc = '\\"';
      else if (c === 0x5c) esc = "\\\\";
      else if (c === 0x0a) esc = "\\n";
      else if (c === 0x0d) esc = "\\r";
      else if (c === 0x09) esc = "\\t";
      else esc = `\\u00${HEX[c >> 4]}${HEX[c & 15]}`;
    } else if (c === 0x2028 || c === 0x2029) {
      esc = `\\u202${HEX[c & 15]}`;
    } else if (c >= 0xd800 && c <= 0xdfff) {
      const next = s.charCodeAt(i + 1);
      if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        i++;
        continue;
      }
      esc = "\ufffd";
    }
    if (esc !== undefined) {
      out += s.slice(start, i) + esc;
      start = i + 1;
    }
  }
  return out + s.slice(start) + '"';
}

const NEEDS_ESCAPE = /["\\<>&\u0000-\u001f\u2028\u2029\ud800-\udfff]/;

/** Formats a float64 like Go's JSON encoder ('f' between 1e-6 and 1e21, else 'e'; same as JS there). */
export function goJsonFloat(f: number): string {
  if (Number.isNaN(f)) throw new UnsupportedValueError("json: unsupported value: NaN");
  if (!Number.isFinite(f)) throw new UnsupportedValueError(`json: unsupported value: ${f > 0 ? "+Inf" : "-Inf"}`);
  return Object.is(f, -0) ? "-0" : String(f);
}

/** Go's decoder refuses deeper nesting; it also keeps our recursion far from the stack limit. */
const MAX_DEPTH = 10000;

/**
 * `json.Marshal` of a decoded YAML value: compact, map keys sorted bytewise, HTML-safe strings. The JSON
 * is collected as parts and joined once: repeated `+=` would leave millions of short-lived rope nodes
 * for a large document. Nesting deeper than `maxDepth` is a {@link MaxDepthError}.
 */
export function goJsonMarshal(v: GoValue, maxDepth = MAX_DEPTH): string {
  const parts: string[] = [];
  marshalInto(v, parts, maxDepth);
  return parts.join("");
}

/** Marshals `v` into `parts`; `depth` is how many more levels of arrays and objects may open. */
function marshalInto(v: GoValue, parts: string[], depth: number): void {
  if (v === null) {
    parts.push("null");
    return;
  }
  switch (typeof v) {
    case "boolean":
      parts.push(v ? "true" : "false");
      return;
    case "bigint":
      parts.push(v.toString());
      return;
    case "number":
      parts.push(goJsonFloat(v));
      return;
    case "string":
      if (NEEDS_ESCAPE.test(v)) parts.push(goQuoteJson(v));
      else parts.push('"', v, '"');
      return;
  }
  if (depth <= 0) throw new MaxDepthError("json: exceeded max depth");
  if (Array.isArray(v)) {
    parts.push("[");
    for (let i = 0; i < v.length; i++) {
      if (i > 0) parts.push(",");
      marshalInto(v[i] ?? null, parts, depth - 1);
    }
    parts.push("]");
    return;
  }
  const keys = sortedKeys(v);
  parts.push("{");
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i] ?? "";
    if (i > 0) parts.push(",");
    marshalInto(k, parts, depth);
    parts.push(":");
    marshalInto(v.get(k) ?? null, parts, depth - 1);
  }
  parts.push("}");
}

const HIGH_SURROGATE_OR_ABOVE = /[\ud800-\uffff]/;

/** Map keys in Go's byte order; the native sort agrees unless a key has a surrogate or a char ≥ U+D800. */
function sortedKeys(m: Map<string, GoValue>): string[] {
  const keys = [...m.keys()];
  return keys.some((k) => HIGH_SURROGATE_OR_ABOVE.test(k)) ? keys.sort(compareGoStrings) : keys.sort();
}

/**
 * A JSON syntax error at `index` (UTF-16 position in the scanned text). `message` is Go's scanner text,
 * e.g. `invalid character '}' looking for beginning of value`, or `unexpected EOF`.
 */
export class JsonSyntaxError extends Error {
  constructor(
    message: string,
    readonly index: number,
    readonly eof: boolean,
  ) {
    super(message);
  }
}

/** JSON insignificant whitespace (space, tab, LF, CR), the only separators Go's decoder skips. */
export function isJsonSpace(c: string | undefined): boolean {
  return c === " " || c === "\t" || c === "\n" || c === "\r";
}

/** Go's `quoteChar` for scanner messages: `'x'`. */
export function quoteChar(c: string): string {
  if (c === "'") return "'\\''";
  if (c === '"') return "'\"'";
  const code = c.codePointAt(0) ?? 0;
  const named: Record<number, string> = { 7: "\\a", 8: "\\b", 9: "\\t", 10: "\\n", 11: "\\v", 12: "\\f", 13: "\\r" };
  if (named[code] !== undefined) return `'${named[code]}'`;
  if (code < 0x20 || code === 0x7f) return `'\\x${HEX[code >> 4]}${HEX[code & 15]}'`;
  return `'${c}'`;
}

/**
 * Scans one JSON value starting at `start` (which must not be whitespace) and returns the index just past
 * it, validating the grammar as Go's scanner does, nesting up to `maxDepth`. Throws {@link JsonSyntaxError}.
 */
export function scanJsonValue(s: string, start: number, maxDepth = MAX_DEPTH): number {
  let i = start;
  const fail = (context: string): never => {
    if (i >= s.length) throw new JsonSyntaxError("unexpected EOF", s.length, true);
    throw new JsonSyntaxError(`invalid character ${quoteChar(s[i] ?? "")} ${context}`, i, false);
  };
  const skipSpace = (): void => {
    while (isJsonSpace(s[i])) i++;
  };
  const isDigit = (): boolean => {
    const c = s[i];
    return c !== undefined && c >= "0" && c <= "9";
  };
  const digits = (context: string): void => {
    if (!isDigit()) fail(context);
    while (isDigit()) i++;
  };
  const literal = (word: string): void => {
    for (let k = 1; k < word.length; k++) {
      i++;
      if (s[i] !== word[k]) fail(`in literal ${word} (expecting ${quoteChar(word[k] ?? "")})`);
    }
    i++;
  };
  const string = (): void => {
    for (i++; s[i] !== '"'; i++) {
      const c = s[i];
      if (c === undefined) fail("");
      else if (c < " ") fail("in string literal");
      else if (c === "\\") {
        i++;
        if (s[i] === "u") {
          for (let k = 0; k < 4; k++) {
            i++;
            if (!/[0-9a-fA-F]/.test(s[i] ?? "")) fail("in \\u hexadecimal character escape");
          }
        } else if (s[i] === undefined || !'"\\/bfnrt'.includes(s[i] ?? "")) {
          fail("in string escape code");
        }
      }
    }
    i++;
  };
  const objectKey = (): void => {
    if (s[i] !== '"') fail("looking for beginning of object key string");
    string();
    skipSpace();
    if (s[i] !== ":") fail("after object key");
    i++;
    skipSpace();
  };
  const scalar = (context: string): void => {
    const c = s[i];
    if (c === '"') string();
    else if (c === "t") literal("true");
    else if (c === "f") literal("false");
    else if (c === "n") literal("null");
    else if (c === "-" || isDigit()) {
      if (c === "-") i++;
      if (s[i] === "0") i++;
      else digits("in numeric literal");
      if (s[i] === ".") {
        i++;
        digits("after decimal point in numeric literal");
      }
      if (s[i] === "e" || s[i] === "E") {
        i++;
        if (s[i] === "+" || s[i] === "-") i++;
        digits("in exponent of numeric literal");
      }
    } else {
      fail(context);
    }
  };

  // Iterative, with an explicit stack of open containers, so nesting depth is bounded by Go's limit
  // rather than by the JS call stack.
  const open: ("}" | "]")[] = [];
  for (;;) {
    const c = s[i];
    if (c === "{" || c === "[") {
      if (open.length >= maxDepth) fail("exceeded max depth");
      const close = c === "{" ? "}" : "]";
      i++;
      skipSpace();
      if (s[i] !== close) {
        open.push(close);
        if (close === "}") objectKey();
        continue;
      }
      i++;
    } else {
      scalar("looking for beginning of value");
    }
    // A value just ended: close finished containers, or move on to the next member.
    for (;;) {
      const close = open.at(-1);
      if (close === undefined) return i;
      skipSpace();
      if (s[i] === close) {
        i++;
        open.pop();
        continue;
      }
      if (s[i] !== ",") fail(close === "}" ? "after object key:value pair" : "after array element");
      i++;
      skipSpace();
      if (close === "}") objectKey();
      break;
    }
  }
}

/** Byte offset Go reports for an error at UTF-16 `index` (bytes consumed including the bad one). */
export function goErrorOffset(s: string, index: number): number {
  return new TextEncoder().encode(s.slice(0, index + 1)).length;
}

/** Line (1-based) and column (1-based, UTF-16 units) of `index` in `s`. */
export function lineColumnOf(s: string, index: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = s.indexOf("\n"); i >= 0 && i < index; i = s.indexOf("\n", i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: index - lineStart + 1 };
}

/** Go `%q` (strconv.Quote) for the printable strings found in object names; control characters escaped. */
export function goQuote(s: string): string {
  const named: Record<string, string> = { "\x07": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v" };
  let out = '"';
  for (const ch of s) {
    if (ch === '"' || ch === "\\") out += `\\${ch}`;
    else if (named[ch] !== undefined) out += named[ch];
    else if (ch < " " || ch === "\x7f") out += `\\x${ch.charCodeAt(0).toString(16).padStart(2, "0")}`;
    else out += ch;
  }
  return out + '"';
}
