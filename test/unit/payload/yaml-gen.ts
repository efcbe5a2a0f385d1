/**
 * fast-check generators for YAML documents in the style of real payloads (block mappings and sequences,
 * every scalar style, flow collections, comments), plus mutations that break them in small ways. Used to
 * check the fast YAML path against the full one, and the loader against bad input.
 */
import fc from "fast-check";

// Scalars whose resolution matters (YAML 1.1 booleans, Go integers, floats, nulls) and ordinary text, and
// (less often) words that start with an indicator or are otherwise odd.
const WORDS = [
  "a",
  "name",
  "x-y",
  "kube-system",
  "v1",
  "apps/v1",
  "true",
  "False",
  "yes",
  "No",
  "on",
  "OFF",
  "y",
  "n",
  "~",
  "null",
  "Null",
  "0",
  "07",
  "0755",
  "09",
  "0x1F",
  "0o17",
  "0b101",
  "-0b101",
  "1_000",
  "12",
  "-3",
  "+4",
  "1.5",
  "-0.0",
  ".5",
  "1.",
  "1e3",
  "1e400",
  "2024-01-01",
  "4.16.0",
  "1:20",
  "a:b",
  "http://x/y",
  "a#b",
  "-x",
  "--flag=1",
  "$(VAR)",
  "<&>",
  "é",
  "日本",
  "😀",
  "a b",
  "x]",
  "a,b",
  "9223372036854775808",
  "18446744073709551616",
  "-9223372036854775809",
];
const ODD_WORDS = [".inf", "-.Inf", ".nan", "[x]y", "{y", "@x", "`x", "%x", "!x", "&x", "*x", "?x", ":x", "|", ">", "'q'", '"q"', "a  b", "- x", "x:", "#x"];

const plainWord = fc.oneof({ weight: 12, arbitrary: fc.constantFrom(...WORDS) }, { weight: 1, arbitrary: fc.constantFrom(...ODD_WORDS) });
const text = fc.array(plainWord, { minLength: 1, maxLength: 4 }).map((ws) => ws.join(" "));
const escapes = fc.constantFrom("\\n", "\\t", '\\"', "\\\\", "\\u00e9", "\\x41", "\\/", "\\0", "\\e", "\\_", "\\N", "\\q", "\\u263A", "\\U0001F600", "\\ud83d");

/** A scalar as it would appear after `key: ` (single line unless `multiline`). */
function scalar(indent: number): fc.Arbitrary<string> {
  const pad = " ".repeat(indent + 2);
  return fc.oneof(
    { weight: 6, arbitrary: text },
    {
      weight: 2,
      arbitrary: fc
        .tuple(text, fc.array(escapes, { maxLength: 2 }), text)
        .map(([a, e, b]) => `"${a.replaceAll('"', "'")}${e.join("")} ${b.replaceAll('"', "")}"`),
    },
    { weight: 2, arbitrary: fc.tuple(text, text).map(([a, b]) => `'${a.replaceAll("'", "''")} ${b.replaceAll("'", "")}'`) },
    // Multi-line plain and quoted scalars (folded), with an empty line now and then.
    {
      weight: 2,
      arbitrary: fc
        .tuple(text, text, fc.boolean(), fc.constantFrom("", "- ", "? ", "-", "["))
        .map(([a, b, gap, lead]) => `${a.replace(/[:#]/g, "")}\n${gap ? "\n" : ""}${pad}${lead}${b.replace(/[:#]/g, "")}`),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(text, text, fc.boolean()).map(([a, b, gap]) => `"${a.replaceAll('"', "")}  \n${gap ? "\n" : ""}${pad}${b.replaceAll('"', "")}"`),
    },
    { weight: 1, arbitrary: fc.tuple(text, text).map(([a, b]) => `'${a.replaceAll("'", "")}\n${pad}${b.replaceAll("'", "")}'`) },
    // Block scalars: literal and folded, every chomping, blank and more-indented lines.
    {
      weight: 2,
      arbitrary: fc
        .tuple(
          fc.constantFrom("|", "|-", "|+", ">", ">-", ">+", "|2"),
          fc.array(
            fc.oneof(
              text,
              fc.constant(""),
              text.map((t) => `  ${t}`),
            ),
            { minLength: 1, maxLength: 4 },
          ),
          fc.boolean(),
        )
        .map(([h, lines, trailing]) => `${h}\n${lines.map((l) => (l === "" ? "" : pad + l)).join("\n")}${trailing ? "\n" : ""}`),
    },
    {
      weight: 2,
      arbitrary: fc
        .array(
          fc.oneof(
            text.map((t) => t.replace(/[,[\]{}]/g, "") || "x"),
            fc.constant("{}"),
            fc.constant("[]"),
            fc.constant("'a, b'"),
          ),
          { maxLength: 3 },
        )
        .map((xs) => `[${xs.join(", ")}]`),
    },
    {
      weight: 1,
      arbitrary: fc
        .array(fc.tuple(plainWord, text), { maxLength: 3 })
        .map((kv) => `{${kv.map(([k, v]) => `${k.replace(/[,:[\]{}#]/g, "")}: ${v.replace(/[,:[\]{}#]/g, "")}`).join(", ")}}`),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom("", "# comment", "&anchor x", "*alias", "!!str 5", "!!int 5", "- x", ": x", "[a,\n  b]", "{a: 1,\n  b: 2}", "[a, b,]"),
    },
  );
}

/** A block node (mapping or sequence) at `indent`, as lines without a trailing newline. */
function block(indent: number, depth: number): fc.Arbitrary<string> {
  const pad = " ".repeat(indent);
  const key = fc.oneof(
    {
      weight: 20,
      arbitrary: fc
        .constantFrom(...WORDS)
        .filter((w) => !/^(~|null|Null)$/.test(w))
        .map((w) => w.replace(/[:#]/g, "k").replace(/^[-?[{&*!|>'"%@`]/, "k")),
    },
    { weight: 3, arbitrary: fc.constantFrom('"quoted key"', "'single'", "1", "true", "1.5", "a b", "-1", "0x10", "é") },
    { weight: 1, arbitrary: fc.constantFrom("<<", "~", "? x", "[a]", "k".repeat(1030)) },
  );
  const value: fc.Arbitrary<string> =
    depth <= 0
      ? scalar(indent).map((s) => ` ${s}`)
      : fc.oneof(
          { weight: 3, arbitrary: scalar(indent).map((s) => ` ${s}`) },
          {
            weight: 2,
            arbitrary: fc
              .constant(null)
              .chain(() => block(indent + 2, depth - 1))
              .map((b) => `\n${b}`),
          },
          {
            weight: 1,
            arbitrary: fc
              .constant(null)
              .chain(() => seq(indent, depth - 1))
              .map((b) => `\n${b}`),
          }, // sequence at the key's indent
        );
  const entry = fc.tuple(key, value, fc.constantFrom("", "", "", "  # trailing", "  ")).map(([k, v, tail]) => `${pad}${k}:${v}${v.includes("\n") ? "" : tail}`);
  const map = fc.array(entry, { minLength: 1, maxLength: 4 }).map((es) => es.join("\n"));
  return depth <= 0 ? map : fc.oneof({ weight: 3, arbitrary: map }, { weight: 1, arbitrary: seq(indent, depth - 1) });
}

function seq(indent: number, depth: number): fc.Arbitrary<string> {
  const pad = " ".repeat(indent);
  const item = fc.oneof(
    { weight: 3, arbitrary: scalar(indent).map((s) => `${pad}- ${s}`) },
    // A compact mapping in the item: `- key: v` with the rest of the map two columns in.
    {
      weight: depth > 0 ? 2 : 0,
      arbitrary: fc
        .constant(null)
        .chain(() => block(indent + 2, Math.max(depth - 1, 0)))
        .map((b) => `${pad}- ${b.slice(indent + 2)}`),
    },
    {
      weight: depth > 0 ? 1 : 0,
      arbitrary: fc
        .constant(null)
        .chain(() => block(indent + 2, Math.max(depth - 1, 0)))
        .map((b) => `${pad}-\n${b}`),
    },
  );
  return fc.array(item, { minLength: 1, maxLength: 3 }).map((is) => is.join("\n"));
}

/** A whole document: blank lines and comments around a block node. */
export const yamlDocument: fc.Arbitrary<string> = fc
  .tuple(fc.constantFrom("", "# head\n", "\n"), block(0, 3), fc.constantFrom("", "\n", "\n# tail\n", "\n\n"))
  .map(([head, body, tail]) => `${head}${body}${tail}`);

/** Small edits that break documents in the ways humans and truncation do. */
export function mutate(doc: fc.Arbitrary<string>): fc.Arbitrary<string> {
  const edit = fc.tuple(
    fc.nat(),
    fc.constantFrom("delete", "insert", "indent", "dedent", "truncate", "dup-line", "marker"),
    fc.constantFrom(":", "-", "#", "[", "]", "{", "}", "'", '"', "|", ">", " ", "\n", "\t", "\r", "&", "*", "!", ",", "?", "\\", "\u2028"),
  );
  return fc.tuple(doc, fc.array(edit, { minLength: 1, maxLength: 3 })).map(([d, edits]) => {
    let s = d;
    for (const [at, kind, ch] of edits) {
      const i = s.length === 0 ? 0 : at % s.length;
      const lineStart = s.lastIndexOf("\n", i - 1) + 1;
      if (kind === "delete") s = s.slice(0, i) + s.slice(i + 1);
      else if (kind === "insert") s = s.slice(0, i) + ch + s.slice(i);
      else if (kind === "indent") s = `${s.slice(0, lineStart)} ${s.slice(lineStart)}`;
      else if (kind === "dedent") s = s.slice(lineStart, lineStart + 1) === " " ? s.slice(0, lineStart) + s.slice(lineStart + 1) : s;
      else if (kind === "truncate") s = s.slice(0, i);
      else if (kind === "marker") s = `${s.slice(0, lineStart)}${ch === "-" ? "---" : "..."}${s.slice(lineStart)}`;
      else {
        const end = s.indexOf("\n", i);
        const line = s.slice(lineStart, end < 0 ? s.length : end);
        s = `${s.slice(0, lineStart)}${line}\n${s.slice(lineStart)}`;
      }
    }
    return s;
  });
}
