/**
 * `release-metadata` (Cincinnati JSON) and `image-references` (an ImageStream), validated in upstream's
 * order with upstream's messages (spec §1.2, §1.3). Failures are plain errors: they abort the load.
 */
import { parseAllDocuments } from "yaml";
import { fastYamlToGo } from "./fast-yaml.js";
import { compareGoStrings, goJsonMarshal, goQuote, isJsonSpace, JsonSyntaxError, lineColumnOf, quoteChar, scanJsonValue, type GoValue } from "./go-json.js";
import type { KubeObject } from "./manifest.js";
import { decodeBudget, YAML_PARSE_OPTIONS, yamlControlCharacter, yamlDocumentToGo, type DecodeBudget } from "./yaml-decode.js";

/** A metadata file that cannot be used; `line` is set for syntax errors. The loader adds the file name. */
export class MetadataError extends Error {
  constructor(
    message: string,
    readonly line?: number,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = "MetadataError";
  }
}

/** The release-metadata value that marks a heterogeneous (multi-arch) payload. */
export const HETEROGENEOUS_ARCHITECTURE = "multi";
/** How such a payload's architecture is reported (openshift/api `ClusterVersionArchitectureMulti`). */
export const MULTI_ARCHITECTURE = "Multi";

/** What `release-metadata` contributes to the loaded update. */
export interface ReleaseMetadata {
  readonly version: string;
  readonly url: string;
  /** Sorted, as upstream sorts them. */
  readonly channels: readonly string[];
  /** {@link MULTI_ARCHITECTURE} for a heterogeneous payload, else the process's own GOARCH. */
  readonly architecture: string;
  /** Values that were ignored because they were not usable (upstream logs a warning). */
  readonly warnings: readonly string[];
}

const NUMBERS = "0123456789";
const ALPHANUM = `abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-${NUMBERS}`;
const containsOnly = (s: string, set: string): boolean => [...s].every((c) => set.includes(c));
const hasLeadingZeroes = (s: string): boolean => s.length > 1 && s[0] === "0";

/** Go `strconv.ParseUint(s, 10, 64)` error text, or undefined when it parses. @internal */
export function parseUintError(s: string): string | undefined {
  if (s === "" || !containsOnly(s, NUMBERS)) return `strconv.ParseUint: parsing ${goQuote(s)}: invalid syntax`;
  return BigInt(s) > 2n ** 64n - 1n ? `strconv.ParseUint: parsing ${goQuote(s)}: value out of range` : undefined;
}

/**
 * Strict SemVer 2.0 as `github.com/blang/semver/v4` `Parse` checks it. Returns that library's error
 * text, or undefined for a valid version (`1.0.0-abc` is valid, `4.11` is not).
 */
export function semverError(s: string): string | undefined {
  if (s === "") return "Version string empty";
  const first = s.indexOf(".");
  const second = first < 0 ? -1 : s.indexOf(".", first + 1);
  if (second < 0) return "No Major.Minor.Patch elements found";
  const parts = [s.slice(0, first), s.slice(first + 1, second)];
  for (const [i, label] of ["major", "minor"].entries()) {
    const p = parts[i] ?? "";
    if (!containsOnly(p, NUMBERS)) return `Invalid character(s) found in ${label} number ${goQuote(p)}`;
    if (hasLeadingZeroes(p)) return `${label === "major" ? "Major" : "Minor"} number must not contain leading zeroes ${goQuote(p)}`;
    const err = parseUintError(p);
    if (err) return err;
  }
  let patch = s.slice(second + 1);
  let build: string[] = [];
  let pre: string[] = [];
  const plus = patch.indexOf("+");
  if (plus >= 0) {
    build = patch.slice(plus + 1).split(".");
    patch = patch.slice(0, plus);
  }
  const dash = patch.indexOf("-");
  if (dash >= 0) {
    pre = patch.slice(dash + 1).split(".");
    patch = patch.slice(0, dash);
  }
  if (!containsOnly(patch, NUMBERS)) return `Invalid character(s) found in patch number ${goQuote(patch)}`;
  if (hasLeadingZeroes(patch)) return `Patch number must not contain leading zeroes ${goQuote(patch)}`;
  const patchErr = parseUintError(patch);
  if (patchErr) return patchErr;
  for (const p of pre) {
    if (p === "") return "Prerelease is empty";
    if (containsOnly(p, NUMBERS)) {
      if (hasLeadingZeroes(p)) return `Numeric PreRelease version must not contain leading zeroes ${goQuote(p)}`;
      const err = parseUintError(p);
      if (err) return err;
    } else if (!containsOnly(p, ALPHANUM)) {
      return `Invalid character(s) found in prerelease ${goQuote(p)}`;
    }
  }
  for (const b of build) {
    if (b === "") return "Build meta data is empty";
    if (!containsOnly(b, ALPHANUM)) return `Invalid character(s) found in build meta data ${goQuote(b)}`;
  }
  return undefined;
}

const jsonType = (v: unknown): string => (Array.isArray(v) ? "array" : typeof v === "object" ? "object" : typeof v === "boolean" ? "bool" : typeof v);

/** Go's json matches struct fields case-insensitively; the last matching key in the document wins. */
function goField(obj: Record<string, unknown>, name: string): unknown {
  let found: unknown;
  for (const [k, v] of Object.entries(obj)) if (k.toLowerCase() === name.toLowerCase()) found = v;
  return found;
}

/** Go `%v` of a decoded JSON value, for the "is not a string" messages. */
function goPrintV(v: unknown): string {
  if (v === null || v === undefined) return "<nil>";
  if (Array.isArray(v)) return `[${v.map(goPrintV).join(" ")}]`;
  if (typeof v === "object") {
    const entries = Object.entries(v as Record<string, unknown>).sort(([a], [b]) => compareGoStrings(a, b));
    return `map[${entries.map(([k, x]) => `${k}:${goPrintV(x)}`).join(" ")}]`;
  }
  return typeof v === "string" || typeof v === "number" || typeof v === "boolean" ? String(v) : typeof v;
}

/** `json.Unmarshal` syntax check with Go's messages. */
function parseGoJson(text: string): unknown {
  let i = 0;
  while (isJsonSpace(text[i])) i++;
  if (i >= text.length) throw new MetadataError("unexpected end of JSON input", lineColumnOf(text, text.length).line);
  try {
    let end = scanJsonValue(text, i);
    while (isJsonSpace(text[end])) end++;
    if (end < text.length) throw new JsonSyntaxError(`invalid character ${quoteChar(text[end] ?? "")} after top-level value`, end, false);
  } catch (e) {
    if (e instanceof JsonSyntaxError) throw new MetadataError(e.eof ? "unexpected end of JSON input" : e.message, lineColumnOf(text, e.index).line);
    throw e;
  }
  return JSON.parse(text) as unknown;
}

/**
 * Validates `release-metadata` (spec §1.2). `processArchitecture` is used when the metadata names none.
 */
export function parseReleaseMetadata(text: string, processArchitecture: string): ReleaseMetadata {
  let doc: unknown;
  try {
    doc = parseGoJson(text);
  } catch (e) {
    const line = e instanceof MetadataError ? e.line : undefined;
    throw new MetadataError(`unmarshal Cincinnati metadata: ${e instanceof Error ? e.message : String(e)}`, line, { cause: e });
  }
  const unmarshalError = (detail: string): Error => new MetadataError(`unmarshal Cincinnati metadata: json: ${detail}`);
  if (doc !== null && (typeof doc !== "object" || Array.isArray(doc))) {
    throw unmarshalError(`cannot unmarshal ${jsonType(doc)} into Go value of type payload.metadata`);
  }
  const obj = (doc ?? {}) as Record<string, unknown>;
  const want: [string, "string" | "array" | "object"][] = [
    ["kind", "string"],
    ["version", "string"],
    ["previous", "array"],
    ["next", "array"],
    ["metadata", "object"],
  ];
  for (const [field, type] of want) {
    const v = goField(obj, field);
    if (v === undefined || v === null) continue;
    const goType = type === "string" ? "string" : type === "array" ? "[]string" : "map[string]interface {}";
    if (jsonType(v) !== type) throw unmarshalError(`cannot unmarshal ${jsonType(v)} into Go struct field metadata.${field} of type ${goType}`);
    if (type === "array") {
      const bad = (v as unknown[]).find((x) => x !== null && typeof x !== "string");
      if (bad !== undefined) throw unmarshalError(`cannot unmarshal ${jsonType(bad)} into Go struct field metadata.${field} of type string`);
    }
  }
  const kind = (goField(obj, "kind") as string | null | undefined) ?? "";
  const version = (goField(obj, "version") as string | null | undefined) ?? "";
  const meta = (goField(obj, "metadata") as Record<string, unknown> | null | undefined) ?? {};

  if (kind !== "cincinnati-metadata-v0") throw new MetadataError(`unrecognized Cincinnati metadata kind ${goQuote(kind)}`);
  if (version === "") throw new MetadataError("missing required Cincinnati metadata version");
  const semErr = semverError(version);
  if (semErr) throw new MetadataError(`Cincinnati metadata version ${goQuote(version)} is not a valid semantic version: ${semErr}`);

  // Upstream (cincinnati.ParseMetadata) only warns about an unusable value and keeps the process's architecture.
  const warnings: string[] = [];
  let architecture = processArchitecture;
  const ARCH_KEY = "release.openshift.io/architecture";
  if (Object.hasOwn(meta, ARCH_KEY)) {
    const arch = meta[ARCH_KEY];
    if (arch === HETEROGENEOUS_ARCHITECTURE) architecture = MULTI_ARCHITECTURE;
    else if (typeof arch === "string")
      warnings.push(`Architecture from release-metadata (${version}) ignored: unrecognized ${ARCH_KEY} value ${goQuote(arch)}`);
    else warnings.push(`Architecture from release-metadata (${version}) ignored: ${ARCH_KEY} is not a string: ${goPrintV(arch)}`);
  }

  let url = "";
  if (Object.hasOwn(meta, "url")) {
    const v = meta["url"];
    if (typeof v === "string") url = v;
    else warnings.push(`URL from release-metadata (${version}) is not a string: ${goPrintV(v)}`);
  }
  let channels: string[] = [];
  const CHANNELS_KEY = "io.openshift.upgrades.graph.release.channels";
  if (Object.hasOwn(meta, CHANNELS_KEY)) {
    const v = meta[CHANNELS_KEY];
    if (typeof v === "string") channels = v.split(",").sort(compareGoStrings);
    else warnings.push(`channel list from release-metadata (${version}) is not a string: ${goPrintV(v)}`);
  }
  return { version, url, channels, architecture, warnings };
}

/**
 * Decodes `image-references` (YAML or JSON) and checks it is a v1 ImageStream named like the release
 * version (spec §1.3). Returns the ImageStream object. Aliases and nesting are bounded by `budget`.
 */
export function parseImageReferences(text: string, version: string, budget: DecodeBudget = decodeBudget()): KubeObject {
  const control = yamlControlCharacter(text);
  if (control) throw new MetadataError(`unmarshal image-references: ${control.message}`, control.line);
  // Real image-references are plain YAML or JSON the fast path decodes; it defers everything else.
  const fast = fastYamlToGo(text);
  return checkImageStream(fast === undefined ? decodeImageReferences(text, budget) : fastValue(fast.value, text, budget), version);
}

function fastValue(value: GoValue, text: string, budget: DecodeBudget): unknown {
  try {
    return JSON.parse(goJsonMarshal(value, budget.limits.maxDepth));
  } catch {
    return decodeImageReferences(text, budget); // e.g. NaN, which has no JSON form: the full path words the error
  }
}

/** The full YAML path for image-references: its first document as JSON-decoded data. */
function decodeImageReferences(text: string, budget: DecodeBudget): unknown {
  const docs = parseAllDocuments(text, YAML_PARSE_OPTIONS);
  const doc = docs[0];
  const err = doc?.errors[0];
  if (err) {
    const line = err.linePos?.[0].line ?? 0;
    throw new MetadataError(`unmarshal image-references: yaml: line ${line}: ${err.message.replace(/ at line \d+[\s\S]*$/, "")}`, line);
  }
  let value: unknown = null;
  if (doc) {
    try {
      value = JSON.parse(goJsonMarshal(yamlDocumentToGo(doc, text.length, budget)));
    } catch (e) {
      throw new MetadataError(`unmarshal image-references: ${e instanceof Error ? e.message : String(e)}`, undefined, { cause: e });
    }
  }
  return value;
}

function checkImageStream(value: unknown, version: string): KubeObject {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new MetadataError(
      `unmarshal image-references: couldn't get version/kind; json parse error: cannot unmarshal ${value === null ? "null" : jsonType(value)} into an object`,
    );
  }
  const obj = value as KubeObject;
  if (typeof obj.kind !== "string" || obj.kind === "") {
    throw new MetadataError("unmarshal image-references: Object 'Kind' is missing");
  }
  if (obj.kind !== "ImageStream" || obj.apiVersion !== "image.openshift.io/v1") {
    throw new MetadataError(`image-references is a ${obj.kind} (${String(obj.apiVersion ?? "")}), not a v1 ImageStream`);
  }
  const name = typeof obj.metadata?.name === "string" ? obj.metadata.name : "";
  if (name !== version) {
    throw new MetadataError(`Version from image-references (${name}) differs from release-metadata (${version})`);
  }
  return obj;
}

/**
 * The release's images by tag name, from image-references (upstream `imagesFromImageRef`): what manifests'
 * templates read as `{{ index .Images "name" }}`. Only tags that point at a DockerImage count.
 */
export function imagesFromImageRef(imageRef: KubeObject | undefined): Record<string, string> {
  const images: Record<string, string> = {};
  const tags = (imageRef?.["spec"] as { tags?: unknown } | undefined)?.tags;
  if (!Array.isArray(tags)) return images;
  for (const tag of tags as { name?: unknown; from?: { kind?: unknown; name?: unknown } }[]) {
    if (tag.from?.kind === "DockerImage" && typeof tag.name === "string" && typeof tag.from.name === "string") images[tag.name] = tag.from.name;
  }
  return images;
}
