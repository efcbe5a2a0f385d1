/**
 * YAML → Go value, resolving scalars the way the CVO's decoder chain does (`gopkg.in/yaml.v2` into
 * `interface{}`, then `sigs.k8s.io/yaml` key conversion). The yaml package parses with the failsafe schema
 * (every scalar a string) so that resolution is ours: YAML 1.1 booleans (`yes`, `on`, `y`), Go integer
 * syntax (`0755` is octal, `0x1F`, `1_000`), timestamps kept as strings. Matching this matters because
 * the resulting JSON feeds the payload hash.
 * @internal
 */
import { isAlias, isMap, isScalar, isSeq } from "yaml";
import type { Document, DocumentOptions, ParseOptions, SchemaOptions, Scalar, YAMLMap } from "yaml";
import { lineColumnOf, UnsupportedValueError, type GoValue } from "./go-json.js";

/** Options for `parseAllDocuments`: failsafe schema, duplicate keys allowed (yaml.v2: last wins). */
export const YAML_PARSE_OPTIONS: ParseOptions & DocumentOptions & SchemaOptions = {
  schema: "failsafe",
  uniqueKeys: false,
  merge: false,
};

/**
 * Bounds on what decoding may build from an outsider's payload. An alias costs a few bytes of source but
 * re-decodes its whole anchored value, so the node budget alone lets 1 MiB used 300 times become 300 MB; and a
 * value nested thousands deep cannot cross to the service's thread (structured clone recurses per level).
 */
export interface PayloadLimits {
  /**
   * Bytes that alias expansions (and merge keys, and the substitutions of `manifests/` templates) may add, over one
   * whole payload (every file and document together).
   */
  readonly maxAliasBytes: number;
  /** Nesting of mappings and sequences (JSON objects and arrays) in one document. */
  readonly maxDepth: number;
}

export const DEFAULT_PAYLOAD_LIMITS: PayloadLimits = { maxAliasBytes: 16 * 1024 * 1024, maxDepth: 512 };

/** {@link PayloadLimits} while decoding one payload: the alias bytes spent so far are shared by all its files. */
export interface DecodeBudget {
  readonly limits: PayloadLimits;
  aliasBytes: number;
}

/** A fresh budget for one payload. */
export function decodeBudget(limits: PayloadLimits = DEFAULT_PAYLOAD_LIMITS): DecodeBudget {
  return { limits, aliasBytes: 0 };
}

/** A decoding failure, with the source offset of the offending node when known. */
export class YamlDecodeError extends Error {
  constructor(
    message: string,
    readonly offset: number | undefined,
  ) {
    super(message);
  }
}

/**
 * What yaml.v2's reader refuses anywhere in a stream ("control characters are not allowed"): C0 controls other
 * than tab, LF and CR, DEL, C1 controls other than NEL, and the non-characters U+FFFE and U+FFFF.
 */
const YAML_CONTROL = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f\ufffe\uffff]/;

/** yaml.v2's refusal of a control character in `text`, as its message and 1-based line within `text`; undefined when none. */
export function yamlControlCharacter(text: string): { message: string; line: number } | undefined {
  const found = YAML_CONTROL.exec(text);
  if (!found) return undefined;
  const code = found[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, "0");
  return { message: `yaml: control characters are not allowed (U+${code})`, line: lineColumnOf(text, found.index).line };
}

const TAG = "tag:yaml.org,2002:";
type Resolved = { tag: "null" | "bool" | "int" | "float" | "str"; value: GoValue };

const SPECIAL = new Map<string, Resolved>();
for (const [tag, value, words] of [
  ["bool", true, "y Y yes Yes YES true True TRUE on On ON"],
  ["bool", false, "n N no No NO false False FALSE off Off OFF"],
  ["null", null, "~ null Null NULL"],
  ["float", Number.NaN, ".nan .NaN .NAN"],
  ["float", Infinity, ".inf .Inf .INF +.inf +.Inf +.INF"],
  ["float", -Infinity, "-.inf -.Inf -.INF"],
] as const) {
  for (const w of words.split(" ")) SPECIAL.set(w, { tag, value });
}
SPECIAL.set("", { tag: "null", value: null });

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;
const GO_INT = /^([+-]?)(?:0[xX]([0-9a-fA-F]+)|0[oO]([0-7]+)|0[bB]([01]+)|0([0-7]*)|([1-9][0-9]*))$/;
const YAML_STYLE_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const DOT_FLOAT = /^\.[0-9]+([eE][-+]?[0-9]+)?$/;

/** yaml.v2's first-character hint: which resolutions a plain scalar can have at all. */
function hintOf(s: string): "N" | "S" | "D" | "M" | "." | "" {
  const c = s[0];
  if (c === undefined) return "N";
  if (c === "+" || c === "-") return "S";
  if (c >= "0" && c <= "9") return "D";
  if ("yYnNtTfFoO~".includes(c)) return "M";
  return c === "." ? "." : "";
}

/** The value of {@link resolvePlain}, without allocating for the common case of a plain string. */
export function resolvePlainValue(s: string): GoValue {
  return hintOf(s) === "" ? s : resolvePlain(s).value;
}

/** yaml.v2 `resolve("", s)`: the implicit type of a plain scalar. */
export function resolvePlain(s: string): Resolved {
  const hint = hintOf(s);
  if (hint === "") return { tag: "str", value: s };
  const special = SPECIAL.get(s);
  if (special) return special;
  if (hint === "." && DOT_FLOAT.test(s)) return finiteFloat(s) ?? { tag: "str", value: s };
  if (hint !== "D" && hint !== "S") return { tag: "str", value: s };
  // Go strips every underscore, then tries ParseInt(base 0), ParseUint, then a YAML-style float.
  const plain = s.replaceAll("_", "");
  const m = GO_INT.exec(plain);
  if (m) {
    const [, sign, hex, oct, bin, legacyOct, dec] = m;
    const magnitude =
      hex !== undefined
        ? BigInt(`0x${hex}`)
        : oct !== undefined
          ? BigInt(`0o${oct}`)
          : bin !== undefined
            ? BigInt(`0b${bin}`)
            : legacyOct !== undefined
              ? legacyOct === ""
                ? 0n
                : BigInt(`0o${legacyOct}`)
              : BigInt(dec ?? "0");
    const n = sign === "-" ? -magnitude : magnitude;
    if (n >= INT64_MIN && n <= INT64_MAX) return { tag: "int", value: n };
    if (sign === "" && n <= UINT64_MAX) return { tag: "int", value: n };
  }
  if (YAML_STYLE_FLOAT.test(plain)) return finiteFloat(plain) ?? { tag: "str", value: s };
  return { tag: "str", value: s };
}

/** Go's ParseFloat rejects out-of-range input, which then stays a string. */
function finiteFloat(s: string): Resolved | undefined {
  const f = Number(s);
  return Number.isFinite(f) ? { tag: "float", value: f } : undefined;
}

function decodeScalar(node: Scalar): GoValue {
  // The failsafe schema leaves every scalar a string.
  const s = typeof node.value === "string" ? node.value : (node.source ?? "");
  const tag = node.tag;
  if (tag === undefined || tag === "!") {
    return node.type === "PLAIN" && tag === undefined ? resolvePlain(s).value : s;
  }
  if (!tag.startsWith(TAG)) return s; // application tags: yaml.v2 keeps the text
  const short = tag.slice(TAG.length);
  switch (short) {
    case "str":
    case "timestamp":
      return s;
    case "binary":
      return decodeBinary(s, node);
    case "null":
    case "bool":
    case "int":
    case "float": {
      const r = resolvePlain(s);
      if (r.tag === short) return r.value;
      if (short === "float" && r.tag === "int") return Number(r.value);
      throw new YamlDecodeError(`yaml: cannot decode !!${r.tag} \`${s}\` as a !!${short}`, node.range?.[0]);
    }
    default:
      return s;
  }
}

function decodeBinary(s: string, node: Scalar): string {
  const b64 = s.replace(/[\r\n]/g, "");
  if (b64.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(b64)) {
    throw new YamlDecodeError("yaml: !!binary value contains invalid base64 data", node.range?.[0]);
  }
  const bin = atob(b64);
  return new TextDecoder().decode(Uint8Array.from(bin, (ch) => ch.charCodeAt(0)));
}

/**
 * sigs.k8s.io/yaml turns map keys into strings: ints in decimal, floats as Go `%g` of a float32, bools
 * as words; anything else is unsupported.
 */
function keyString(key: GoValue, offset: number | undefined): string {
  if (typeof key === "string") return key;
  if (typeof key === "boolean") return key ? "true" : "false";
  if (typeof key === "bigint" && key <= INT64_MAX) return key.toString();
  if (typeof key === "number") return goFloat32G(key);
  const type = typeof key === "bigint" ? "uint64" : Array.isArray(key) ? "slice" : key === null ? "<nil>" : typeof key;
  throw new YamlDecodeError(`error converting YAML to JSON: Unsupported map key of type: ${type}`, offset);
}

/** {@link keyString} for the fast path: undefined wherever the full path reports an error. @internal */
export function keyStringOrUndefined(key: GoValue): string | undefined {
  try {
    return key === null ? undefined : keyString(key, undefined);
  } catch {
    return undefined;
  }
}

/** strconv.FormatFloat(f, 'g', -1, 32), with YAML spellings for the specials. */
export function goFloat32G(f: number): string {
  if (Number.isNaN(f)) return ".nan";
  if (!Number.isFinite(f)) return f > 0 ? ".inf" : "-.inf";
  const f32 = Math.fround(f);
  if (f32 === 0) return Object.is(f32, -0) ? "-0" : "0";
  let digits = "";
  let exp = 0;
  for (let p = 1; p <= 9; p++) {
    const [mant = "", e = "0"] = f32.toExponential(p - 1).split("e");
    if (Math.fround(Number(`${mant}e${e}`)) === f32) {
      digits = mant.replace("-", "").replace(".", "");
      exp = Number(e);
      break;
    }
  }
  const sign = f32 < 0 ? "-" : "";
  if (exp < -4 || exp >= 6) {
    // Shortest %g switches to exponent form outside [1e-4, 1e6), Go's fixed eprec of 6.
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    return `${sign}${m}e${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`;
  }
  if (exp < 0) return `${sign}0.${"0".repeat(-exp - 1)}${digits}`;
  const intLen = exp + 1;
  return digits.length <= intLen ? `${sign}${digits}${"0".repeat(intLen - digits.length)}` : `${sign}${digits.slice(0, intLen)}.${digits.slice(intLen)}`;
}

/**
 * Converts a parsed YAML document to a Go value. Aliases are expanded (yaml.v2 re-decodes them) with a
 * budget against alias bombs (nodes per document, bytes per payload in `budget`); nesting beyond
 * `budget.limits.maxDepth` is refused; `<<` merge keys follow yaml.v2 (applied in order, earlier list entries win).
 */
export function yamlDocumentToGo(doc: Document, sourceLength: number, budget: DecodeBudget = decodeBudget()): GoValue {
  let nodes = 4 * sourceLength + 10_000;
  const { maxAliasBytes, maxDepth } = budget.limits;
  const active = new Set<unknown>();
  let depth = 0;
  /** The outermost alias being expanded (where an overspent budget is reported), if any. */
  let expanding: { range?: [number, number, number] | null } | undefined;

  /** Charges what an alias expansion adds to the output, roughly its JSON size. */
  const spend = (bytes: number): void => {
    if (expanding === undefined) return;
    budget.aliasBytes += bytes;
    if (budget.aliasBytes > maxAliasBytes) {
      throw new YamlDecodeError(`yaml: aliases expand to more than ${maxAliasBytes} bytes (the payload's limit)`, expanding.range?.[0]);
    }
  };

  const decode = (node: unknown): GoValue => {
    if (--nodes < 0) throw new YamlDecodeError("yaml: document contains excessive aliasing", undefined);
    if (node === null || node === undefined) return null;
    if (isAlias(node)) {
      const target = node.resolve(doc);
      if (target === undefined) throw new YamlDecodeError(`yaml: unknown anchor '${node.source}' referenced`, node.range?.[0]);
      if (active.has(target)) throw new YamlDecodeError(`yaml: anchor '${node.source}' value contains itself`, node.range?.[0]);
      active.add(target);
      const outer = expanding;
      expanding ??= node;
      try {
        return decode(target);
      } finally {
        active.delete(target);
        expanding = outer;
      }
    }
    if (isScalar(node)) {
      const value = decodeScalar(node);
      spend(typeof value === "string" ? value.length + 2 : 8);
      return value;
    }
    if (!isSeq(node) && !isMap(node)) throw new YamlDecodeError("yaml: unsupported node", undefined);
    if (++depth > maxDepth) throw new YamlDecodeError(`yaml: exceeded max depth of ${maxDepth}`, node.range?.[0]);
    try {
      spend(2);
      if (isSeq(node)) return node.items.map(decode);
      const out = new Map<string, GoValue>();
      decodeMapInto(node, out);
      return out;
    } finally {
      depth--;
    }
  };

  const asMap = (node: unknown): YAMLMap<unknown, unknown> | undefined => {
    const target = isAlias(node) ? node.resolve(doc) : node;
    return isMap(target) ? target : undefined;
  };

  const mergeInto = (key: Scalar, value: unknown, out: Map<string, GoValue>): void => {
    // A merge copies its maps (usually aliased) into this one: charged as an alias expansion.
    const outer = expanding;
    expanding ??= key;
    try {
      mergeMaps(value, out, key.range?.[0]);
    } finally {
      expanding = outer;
    }
  };

  const mergeMaps = (value: unknown, out: Map<string, GoValue>, offset: number | undefined): void => {
    const single = asMap(value);
    if (single) return decodeMapInto(single, out);
    if (isSeq(value)) {
      const maps = value.items.map(asMap);
      if (maps.every((m): m is YAMLMap<unknown, unknown> => m !== undefined)) {
        // Backwards, so that earlier maps in the list overwrite later ones (yaml.v2 precedence).
        for (const m of maps.reverse()) decodeMapInto(m, out);
        return;
      }
    }
    throw new YamlDecodeError("yaml: map merge requires map or sequence of maps as the value", offset);
  };

  const decodeMapInto = (map: YAMLMap<unknown, unknown>, out: Map<string, GoValue>): void => {
    for (const pair of map.items) {
      const k = pair.key;
      const offset = (k as { range?: [number, number, number] } | null)?.range?.[0];
      if (isScalar(k) && k.value === "<<" && ((k.type === "PLAIN" && k.tag === undefined) || k.tag === `${TAG}merge`)) {
        mergeInto(k, pair.value, out);
        continue;
      }
      if (isMap(k) || isSeq(k)) throw new YamlDecodeError("yaml: invalid map key: a collection cannot be a key", offset);
      const key = decode(k);
      if (key === null) throw new YamlDecodeError("error converting YAML to JSON: Unsupported map key of type: <nil>", offset);
      out.set(keyString(key, offset), decode(pair.value));
    }
  };

  try {
    return decode(doc.contents);
  } catch (e) {
    if (e instanceof YamlDecodeError || e instanceof UnsupportedValueError) throw e;
    // Deep nesting (stack overflow) or library surprises: report as a decode failure of this document.
    throw new YamlDecodeError(`yaml: ${e instanceof Error ? e.message : String(e)}`, undefined);
  }
}
