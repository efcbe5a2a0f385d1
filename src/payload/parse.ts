/**
 * One payload file → manifests (library-go `manifest.ParseManifests`): a JSON stream or multi-document
 * YAML, each document checked for kind and name and for duplicates within the file.
 * @internal
 */
import { LineCounter, parseAllDocuments } from "yaml";
import {
  goErrorOffset,
  goJsonMarshal,
  goQuote,
  isJsonSpace,
  JsonSyntaxError,
  lineColumnOf,
  MaxDepthError,
  scanJsonValue,
  UnsupportedValueError,
  type GoValue,
} from "./go-json.js";
import { gvkOf, type KubeObject, type Manifest } from "./manifest.js";
import { fastYamlToGo } from "./fast-yaml.js";
import { decodeBudget, YAML_PARSE_OPTIONS, yamlControlCharacter, YamlDecodeError, yamlDocumentToGo, type DecodeBudget } from "./yaml-decode.js";

/**
 * A file that cannot become manifests. The message carries upstream's text (`error parsing: …`,
 * `duplicate resource: …`) with the line appended; the loader prefixes `parse {file}: `.
 */
export class ManifestParseError extends Error {
  constructor(
    message: string,
    /** 1-based line in the file, when known. */
    readonly line: number | undefined,
    /** 1-based index of the failing document (YAML `---` section or JSON value), when one is to blame. */
    readonly document?: number,
  ) {
    super(message);
    this.name = "ManifestParseError";
  }
}

/** ` (document D, line L[, column C])`: where a failure is, appended to upstream's text. */
function where(document: number, line: number | undefined, column?: number): string {
  const parts = [`document ${document}`];
  if (line !== undefined) parts.push(`line ${line}`);
  if (column !== undefined) parts.push(`column ${column}`);
  return ` (${parts.join(", ")})`;
}

/** Go's `unicode.IsSpace`, which decides the JSON sniff (not JSON's narrower whitespace). */
const GO_SPACE = /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*/;

/** JSON iff the first non-space character within the first 1024 is `{` (k8s `GuessJSONStream`). */
export function isJsonStream(text: string): boolean {
  const head = text.slice(0, 1024);
  return head[GO_SPACE.exec(head)?.[0].length ?? 0] === "{";
}

/**
 * Parses every document of a file, in order, stamping `originalFilename`. Empty and `null` documents are
 * dropped. Throws {@link ManifestParseError} on the first bad document, as upstream does. Alias expansion and
 * nesting are bounded by `budget` (shared by every file of one payload).
 */
export function parseManifests(text: string, originalFilename: string, budget: DecodeBudget = decodeBudget()): Manifest[] {
  const out: Manifest[] = [];
  const seen = new Set<string>();
  // Where parsing is, so that even a stack overflow can name the document.
  const at = { document: 0, line: 1 };
  const add = (raw: string, document: number, line: number): void => {
    const m = toManifest(raw, originalFilename, document, line);
    if (!m) return;
    const id = resourceIdString(m);
    if (seen.has(id)) throw new ManifestParseError(`duplicate resource: (${id})${where(document, line)}`, line, document);
    seen.add(id);
    out.push(m);
  };
  try {
    if (isJsonStream(text)) parseJsonStream(text, budget.limits.maxDepth, at, add);
    else parseYamlStream(text, budget, at, add);
  } catch (e) {
    // The yaml parser recurses per nesting level; a pathological file must stay a per-file error.
    if (e instanceof RangeError) throw new ManifestParseError(`error parsing: ${e.message}${where(at.document, at.line)}`, at.line, at.document);
    throw e;
  }
  return out;
}

type AddDocument = (raw: string, document: number, line: number) => void;

function parseJsonStream(text: string, maxDepth: number, at: { document: number; line: number }, add: AddDocument): void {
  let i = 0;
  let line = 1;
  let counted = 0; // newlines before `counted` are already in `line`
  for (;;) {
    while (isJsonSpace(text[i])) i++;
    if (i >= text.length) return;
    const start = i;
    at.document++;
    try {
      i = scanJsonValue(text, start, maxDepth);
    } catch (e) {
      if (!(e instanceof JsonSyntaxError)) throw e;
      const { line: errLine, column } = lineColumnOf(text, e.index);
      const detail = e.eof ? e.message : `json: offset ${goErrorOffset(text, e.index)}: ${e.message}`;
      throw new ManifestParseError(`error parsing: ${detail}${where(at.document, errLine, column)}`, errLine, at.document);
    }
    for (let nl = text.indexOf("\n", counted); nl >= 0 && nl < start; nl = text.indexOf("\n", nl + 1)) line++;
    counted = start;
    at.line = line;
    add(text.slice(start, i), at.document, line);
  }
}

/**
 * k8s `YAMLReader`: a document ends at any line starting with `---`, which must be followed by nothing
 * but a comment. A bad separator line is an error before the document it closes is decoded.
 */
export function splitYamlDocuments(text: string): { docs: { text: string; line: number }[]; bad?: { rest: string; line: number } } {
  const docs: { text: string; line: number }[] = [];
  let docStart = 0;
  let docLine = 1;
  let line = 1;
  for (let pos = 0; pos < text.length; line++) {
    const nl = text.indexOf("\n", pos);
    const end = nl < 0 ? text.length : nl + 1;
    if (text.startsWith("---", pos)) {
      const rest = text.slice(pos + 3, end).trim();
      if (rest !== "" && !rest.startsWith("#")) return { docs, bad: { rest, line } };
      if (pos > docStart) docs.push({ text: text.slice(docStart, pos), line: docLine });
      docStart = end;
      docLine = line + 1;
    }
    pos = end;
  }
  if (docStart < text.length) docs.push({ text: text.slice(docStart), line: docLine });
  return { docs };
}

function parseYamlStream(text: string, budget: DecodeBudget, at: { document: number; line: number }, add: AddDocument): void {
  const { docs, bad } = splitYamlDocuments(text);
  for (const chunk of docs) {
    at.document++;
    at.line = chunk.line;
    const control = yamlControlCharacter(chunk.text);
    if (control) {
      const line = chunk.line + control.line - 1;
      throw new ManifestParseError(`error parsing: error converting YAML to JSON: ${control.message}${where(at.document, line)}`, line, at.document);
    }
    // The fast path handles the plain subset real payloads use; on anything else, and for every error
    // (so that messages come from one place), the full path decides.
    const fast = fastYamlToGo(chunk.text);
    if (fast !== undefined) {
      if (fast.value === null) continue;
      at.line = chunk.line + fast.line - 1;
      const raw = marshalOrUndefined(fast.value, budget.limits.maxDepth, at);
      if (raw !== undefined) {
        add(raw, at.document, at.line);
        continue;
      }
    }
    const decoded = decodeYamlChunk(chunk, at.document, budget);
    if (decoded === undefined) continue;
    at.line = decoded.line;
    add(decoded.raw, at.document, decoded.line);
  }
  if (bad) {
    const document = at.document + 1;
    throw new ManifestParseError(`error parsing: invalid Yaml document separator: ${bad.rest}${where(document, bad.line)}`, bad.line, document);
  }
}

/**
 * The JSON of a fast-path value, or undefined when only the full path can word what is wrong with it. Too deep a
 * value is refused here: the full path's parser would recurse once per level, which is what the limit prevents.
 */
function marshalOrUndefined(value: GoValue, maxDepth: number, at: { document: number; line: number }): string | undefined {
  try {
    return goJsonMarshal(value, maxDepth);
  } catch (e) {
    if (e instanceof MaxDepthError)
      throw new ManifestParseError(`error parsing: yaml: exceeded max depth of ${maxDepth}${where(at.document, at.line)}`, at.line, at.document);
    if (e instanceof UnsupportedValueError) return undefined;
    throw e;
  }
}

/** The full YAML path (the `yaml` package, then yaml.v2 resolution): raw JSON, or undefined for an empty document. */
function decodeYamlChunk(chunk: { text: string; line: number }, document: number, budget: DecodeBudget): { raw: string; line: number } | undefined {
  const lc = new LineCounter();
  // Like yaml.v2's Unmarshal, only the first document of a chunk counts (a `...` marker ends it).
  const doc = parseAllDocuments(chunk.text, { ...YAML_PARSE_OPTIONS, lineCounter: lc })[0];
  if (!doc) return undefined;
  const lineOf = (offset: number): number => chunk.line + lc.linePos(offset).line - 1;
  const err = doc.errors[0];
  if (err) {
    const msg = err.message.replace(/ at line \d+, column \d+:[\s\S]*$/, "");
    const { col } = lc.linePos(err.pos[0]);
    const errLine = lineOf(err.pos[0]);
    throw new ManifestParseError(
      `error parsing: error converting YAML to JSON: yaml: line ${errLine}: ${msg}${where(document, undefined, col)}`,
      errLine,
      document,
    );
  }
  const line = lineOf(doc.contents?.range[0] ?? doc.range[0]);
  try {
    const value = yamlDocumentToGo(doc, chunk.text.length, budget);
    return value === null ? undefined : { raw: goJsonMarshal(value), line };
  } catch (e) {
    if (!(e instanceof YamlDecodeError || e instanceof UnsupportedValueError)) throw e;
    const errLine = e instanceof YamlDecodeError && e.offset !== undefined ? lineOf(e.offset) : line;
    const detail = e instanceof UnsupportedValueError ? `error converting YAML to JSON: ${e.message}` : e.message;
    throw new ManifestParseError(`error parsing: ${detail}${where(document, errLine)}`, errLine, document);
  }
}

const JSON_TYPE = (v: unknown): string =>
  v === null ? "null" : Array.isArray(v) ? "array" : typeof v === "object" ? "object" : typeof v === "boolean" ? "bool" : typeof v;

/** Decodes one document as upstream's unstructured decoder would, or undefined for `null`. */
function toManifest(raw: string, originalFilename: string, document: number, line: number): Manifest | undefined {
  if (raw === "null") return undefined;
  const fail = (detail: string): never => {
    throw new ManifestParseError(`error parsing: ${detail}${where(document, line)}`, line, document);
  };
  // Decoding the compact JSON (rather than reusing the YAML parser's strings) keeps the object small and
  // independent of the file's text, which slices of it would otherwise keep alive.
  const parsed: unknown = JSON.parse(raw);
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    return fail(`unable to decode manifest: couldn't get version/kind; json parse error: cannot unmarshal ${JSON_TYPE(parsed)} into an object`);
  }
  const obj = parsed as KubeObject;
  for (const field of ["apiVersion", "kind"] as const) {
    const v = obj[field];
    if (v !== undefined && v !== null && typeof v !== "string") {
      fail(`unable to decode manifest: couldn't get version/kind; json parse error: cannot unmarshal ${JSON_TYPE(v)} into ${field} of type string`);
    }
  }
  const apiVersion = typeof obj.apiVersion === "string" ? obj.apiVersion : "";
  if (apiVersion.split("/").length > 2) fail(`unable to decode manifest: unexpected GroupVersion string: ${apiVersion}`);
  if (!obj.kind) {
    fail(`unable to decode manifest: Object 'Kind' is missing in '${raw.length > 200 ? `${raw.slice(0, 200)}...` : raw}'`);
  }
  const m: Manifest = { originalFilename, raw, gvk: gvkOf(obj), obj };
  if (!stringField(obj.metadata, "name")) {
    fail(`Resource with fields ${resourceIdString(m)} must contain kubernetes required fields kind and name`);
  }
  return m;
}

function stringField(meta: unknown, key: string): string {
  const v = typeof meta === "object" && meta !== null ? (meta as Record<string, unknown>)[key] : undefined;
  return typeof v === "string" ? v : "";
}

/** Upstream `resourceId.String()`: `Group: "g" Kind: "k" [Namespace: "ns" ]Name: "n"`. */
export function resourceIdString(m: Manifest): string {
  const ns = stringField(m.obj.metadata, "namespace");
  const name = stringField(m.obj.metadata, "name");
  const q = goQuote;
  return ns === ""
    ? `Group: ${q(m.gvk.group)} Kind: ${q(m.gvk.kind)} Name: ${q(name)}`
    : `Group: ${q(m.gvk.group)} Kind: ${q(m.gvk.kind)} Namespace: ${q(ns)} Name: ${q(name)}`;
}
