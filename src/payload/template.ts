/**
 * The subset of Go `text/template` the CVO's own manifests need (payload `manifests/`): `{{ .Field }}`,
 * `{{ index .Images "name" }}` (a release's image by its image-references tag), string literals
 * (`{{ "{{ $labels.name }}" }}` is how Prometheus templates are escaped), raw strings, comments and the
 * `{{-` / `-}}` trim markers. Anything else is rejected rather than mis-rendered.
 */
import { decodeBudget, type DecodeBudget } from "./yaml-decode.js";

/**
 * A template failure; `phase` mirrors Go's split between parse errors and execution errors, plus `limit`: the
 * substitutions outgrew the payload's expansion budget (an image name from image-references can be large, and
 * each `{{ index .Images "x" }}` of a few bytes repeats it).
 */
export class TemplateError extends Error {
  constructor(
    readonly phase: "parse" | "execute" | "limit",
    readonly line: number,
    message: string,
  ) {
    super(message);
    this.name = "TemplateError";
  }
}

/** What a template can read: strings, and string maps such as `Images` (upstream's `map[string]string`). */
export type TemplateData = Readonly<Record<string, string | Readonly<Record<string, string>>>>;

type Segment = { text: string } | { field: string; key?: string; line: number; column: number };

const SPACE = " \t\r\n";
const isSpace = (c: string | undefined): boolean => c !== undefined && c !== "" && SPACE.includes(c);
const FIELD = /^\.([\p{L}_][\p{L}\p{Nd}_]*)$/u;
const INDEX = /^index[ \t\r\n]+\.([\p{L}_][\p{L}\p{Nd}_]*)[ \t\r\n]+("(?:[^"\\\n]|\\.)*"|`[^`]*`)$/u;

/**
 * Renders `text` with the string fields of `data` (Go: `template.New(name).Parse(text).Execute(data)`).
 * Output outside actions is byte-for-byte the input. Throws {@link TemplateError} naming the line and the
 * offending action; the whole template is parsed before anything executes, as in Go.
 */
export function renderTemplate(text: string, data: TemplateData, name = "manifest", budget: DecodeBudget = decodeBudget()): string {
  let out = "";
  for (const seg of parseTemplate(text, name)) {
    if ("text" in seg) {
      out += seg.text;
      continue;
    }
    const where = `template: ${name}:${seg.line}:${seg.column}`;
    const fail = (detail: string): never => {
      throw new TemplateError("execute", seg.line, `${where}: executing "${name}" at <.${seg.field}>: ${detail}`);
    };
    const value = Object.hasOwn(data, seg.field) ? data[seg.field] : fail(`can't evaluate field ${seg.field} (known fields: ${Object.keys(data).join(", ")})`);
    let piece: string;
    if (seg.key === undefined) piece = typeof value === "string" ? value : goMapText(value ?? {});
    else if (typeof value === "string") piece = fail(`error calling index: can't index item of type string`);
    // Go's index of a missing map key is the element type's zero value: an empty string.
    else piece = Object.hasOwn(value ?? {}, seg.key) ? (value?.[seg.key] ?? "") : "";
    budget.aliasBytes += piece.length;
    if (budget.aliasBytes > budget.limits.maxAliasBytes) {
      throw new TemplateError("limit", seg.line, `${where}: substitutions expand to more than ${budget.limits.maxAliasBytes} bytes (the payload's limit)`);
    }
    out += piece;
  }
  return out;
}

/** How Go prints a map[string]string: keys sorted, `map[k:v k:v]`. */
function goMapText(map: Readonly<Record<string, string>>): string {
  const keys = Object.keys(map).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return `map[${keys.map((k) => `${k}:${map[k] ?? ""}`).join(" ")}]`;
}

function parseTemplate(text: string, name: string): Segment[] {
  const segs: Segment[] = [];
  let pos = 0;
  let line = 1;
  let trimNext = false;
  const lineAt = (from: number, to: number): number => {
    for (let i = text.indexOf("\n", from); i >= 0 && i < to; i = text.indexOf("\n", i + 1)) line++;
    return line;
  };
  const fail = (at: number, detail: string): never => {
    throw new TemplateError("parse", at, `template: ${name}:${at}: ${detail}`);
  };

  for (;;) {
    const open = text.indexOf("{{", pos);
    let chunk = open < 0 ? text.slice(pos) : text.slice(pos, open);
    if (trimNext) chunk = trimLeft(chunk);
    if (open < 0) {
      segs.push({ text: chunk });
      return segs;
    }
    const openLine = lineAt(pos, open);
    let p = open + 2;
    if (text[p] === "-" && isSpace(text[p + 1])) {
      chunk = trimRight(chunk);
      p += 2;
    }
    segs.push({ text: chunk });

    let bodyEnd: number;
    const comment = text.startsWith("/*", p);
    if (comment) {
      const close = text.indexOf("*/", p + 2);
      if (close < 0) fail(openLine, "unclosed comment");
      bodyEnd = close + 2;
      if (!atRightDelim(text, bodyEnd)) fail(openLine, "comment ends before closing delimiter");
    } else {
      bodyEnd = scanAction(text, p, (detail) => fail(openLine, detail));
    }
    trimNext = isSpace(text[bodyEnd]) && text[bodyEnd + 1] === "-" && text.startsWith("}}", bodyEnd + 2);
    const next = trimNext ? bodyEnd + 4 : bodyEnd + 2;
    const action = text.slice(open, next);

    if (!comment) {
      const body = text.slice(p, bodyEnd).replace(/^[ \t\r\n]+|[ \t\r\n]+$/g, "");
      const field = FIELD.exec(body);
      const index = INDEX.exec(body);
      if (field?.[1] !== undefined || index?.[1] !== undefined) {
        // Go reports execution errors at the field itself (0-based column), which may sit on a later line.
        const at = text.indexOf(body, p) + body.indexOf(".");
        const before = text.slice(open, at);
        const position = { line: openLine + before.split("\n").length - 1, column: at - (text.lastIndexOf("\n", at - 1) + 1) };
        if (field?.[1] !== undefined) segs.push({ field: field[1], ...position });
        else if (index?.[1] !== undefined && index[2] !== undefined) {
          const literal = index[2];
          const key = literal.startsWith("`") ? literal.slice(1, -1).replaceAll("\r", "") : unquoteGo(literal);
          if (key === undefined) fail(openLine, `invalid syntax in string literal ${literal}`);
          else segs.push({ field: index[1], key, ...position });
        }
      } else if ((body.startsWith('"') || body.startsWith("`")) && literalEnd(body) === body.length) {
        const value = body.startsWith("`") ? body.slice(1, -1).replaceAll("\r", "") : unquoteGo(body);
        if (value === undefined) fail(openLine, `invalid syntax in string literal ${body}`);
        else segs.push({ text: value });
      } else {
        fail(openLine, `unsupported action ${action}: only {{ .Field }}, {{ index .Field "key" }} and string literals are supported`);
      }
    }
    lineAt(open, next);
    pos = next;
  }
}

const trimLeft = (s: string): string => s.replace(/^[ \t\r\n]+/, "");
const trimRight = (s: string): string => s.replace(/[ \t\r\n]+$/, "");

function atRightDelim(text: string, i: number): boolean {
  return text.startsWith("}}", i) || (isSpace(text[i]) && text[i + 1] === "-" && text.startsWith("}}", i + 2));
}

/** Index of the action's closing delimiter (or of the space before ` -}}`), skipping quoted text. */
function scanAction(text: string, from: number, bad: (detail: string) => never): number {
  let i = from;
  while (i < text.length) {
    if (atRightDelim(text, i)) return i;
    const c = text[i];
    if (c === '"' || c === "'" || c === "`") {
      const end = literalEnd(text, i);
      if (end < 0) bad(c === "`" ? "unterminated raw quoted string" : c === '"' ? "unterminated quoted string" : "unterminated character constant");
      i = end;
    } else {
      i++;
    }
  }
  return bad("unclosed action");
}

/** End (exclusive) of the quoted literal starting at `start`, or -1 if unterminated (Go lexer rules). */
function literalEnd(s: string, start = 0): number {
  const q = s[start];
  if (q === "`") {
    const close = s.indexOf("`", start + 1);
    return close < 0 ? -1 : close + 1;
  }
  for (let i = start + 1; i < s.length; i++) {
    const c = s[i];
    if (c === "\n") return -1;
    if (c === "\\") {
      if (s[i + 1] === undefined || s[i + 1] === "\n") return -1;
      i++;
    } else if (c === q) {
      return i + 1;
    }
  }
  return -1;
}

const SIMPLE_ESCAPES: Record<string, number> = { a: 7, b: 8, f: 12, n: 10, r: 13, t: 9, v: 11, "\\": 92, '"': 34 };

/** Go `strconv.Unquote` for a double-quoted literal; `\x` and octal escapes are raw bytes. */
export function unquoteGo(lit: string): string | undefined {
  const bytes: number[] = [];
  const encoder = new TextEncoder();
  const s = lit.slice(1, -1);
  for (let i = 0; i < s.length;) {
    const cp = s.codePointAt(i) ?? 0;
    const ch = String.fromCodePoint(cp);
    if (ch !== "\\") {
      if (ch === '"') return undefined;
      bytes.push(...encoder.encode(ch));
      i += ch.length;
      continue;
    }
    const e = s[i + 1] ?? "";
    i += 2;
    const simple = SIMPLE_ESCAPES[e];
    if (simple !== undefined) {
      bytes.push(simple);
    } else if (e === "x" || e === "u" || e === "U") {
      const n = e === "x" ? 2 : e === "u" ? 4 : 8;
      const hex = s.slice(i, i + n);
      if (!new RegExp(`^[0-9a-fA-F]{${n}}$`).test(hex)) return undefined;
      i += n;
      const v = parseInt(hex, 16);
      if (e === "x") bytes.push(v);
      else if (v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff)) return undefined;
      else bytes.push(...encoder.encode(String.fromCodePoint(v)));
    } else if (e >= "0" && e <= "7") {
      const oct = s.slice(i - 1, i + 2);
      if (!/^[0-7]{3}$/.test(oct) || parseInt(oct, 8) > 255) return undefined;
      bytes.push(parseInt(oct, 8));
      i += 2;
    } else {
      return undefined;
    }
  }
  return new TextDecoder().decode(Uint8Array.from(bytes));
}
