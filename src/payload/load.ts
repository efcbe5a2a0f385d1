/**
 * `LoadUpdate` (spec §1.1–1.8): validates a payload directory, reads its release metadata and image
 * references, then every manifest file in a fixed order (which defines task indices and the hash),
 * rendering the CVO's own `manifests/` as templates and filtering with the load-time inclusion rules.
 * All file access goes through {@link PayloadFs}, so tests can load from memory.
 */
import { join, relative, sep } from "node:path";
import { compareGoStrings } from "./go-json.js";
import { manifestHash } from "./hash.js";
import { messageOf, PayloadError, type PayloadErrorKind, type PayloadProblem } from "./errors.js";
import { exclusionReason, type IncludeFilter } from "./include.js";
import { nameOf, namespaceOf, type ExcludedManifest, type Manifest, type PayloadUpdate } from "./manifest.js";
import { imagesFromImageRef, MetadataError, parseImageReferences, parseReleaseMetadata } from "./metadata.js";
import { ManifestParseError, parseManifests } from "./parse.js";
import { renderTemplate, TemplateError, type TemplateData } from "./template.js";
import { InvalidUtf8Error } from "./utf8.js";
import { decodeBudget, type DecodeBudget, type PayloadLimits } from "./yaml-decode.js";

/** What a directory entry is, as `lstat` sees it (a symbolic link is not followed). */
export type PayloadEntryType = "file" | "directory" | "symlink" | "fifo" | "socket" | "device";

/** The few file operations loading needs; injected so the payload folder stays free of direct I/O. */
export interface PayloadFs {
  /** Entries of `dir` with their lstat type; loading skips directories, as Go's lstat-based listing does. */
  readdir(dir: string): Promise<{ name: string; type: PayloadEntryType }[]>;
  /**
   * The contents of a regular file as UTF-8 (invalid UTF-8 is an {@link InvalidUtf8Error}). Anything else, and a
   * symbolic link in the last component, is refused without blocking (a FIFO with no writer would hang a plain read forever).
   */
  readFile(path: string): Promise<string>;
  stat(path: string): Promise<{ isDirectory: boolean }>;
  /** The path with every symbolic link resolved. */
  realpath(path: string): Promise<string>;
}

/** What a file that is not a regular one is, for refusals. @internal */
export const NOT_REGULAR: Readonly<Record<Exclude<PayloadEntryType, "file">, string>> = {
  directory: "a directory",
  symlink: "a symbolic link",
  fifo: "a named pipe (FIFO)",
  socket: "a socket",
  device: "a device file",
};

/** Whether `path` is `dir` or below it; both resolved. */
export function isWithin(dir: string, path: string): boolean {
  return path === dir || path.startsWith(dir.endsWith(sep) ? dir : dir + sep);
}

/** Load-time inclusion arguments and environment. Absent fields take the CVO's defaults. */
export interface LoadOptions {
  /** `EXCLUDE_MANIFESTS` identifier; default "" (no manifest carries `exclude.release.openshift.io/`). */
  exclude?: string;
  /**
   * The cluster's feature set (`FeatureGate.spec.featureSet`): "" or `Default` (the default),
   * `TechPreviewNoUpgrade`, `DevPreviewNoUpgrade` or `CustomNoUpgrade`.
   */
  featureSet?: string;
  /**
   * The cluster's enabled feature gates, for the `feature-gate` annotation; default none. The payload's major
   * version, for the `major-version` annotation, is read from its release-metadata.
   */
  enabledFeatureGates?: ReadonlySet<string>;
  /** `CLUSTER_PROFILE`; default {@link DEFAULT_CLUSTER_PROFILE}. Also the template's `.ClusterProfile`. */
  clusterProfile?: string;
  /** Every capability this build knows; manifests naming any other capability are excluded. */
  knownCapabilities: readonly string[];
  /**
   * Capabilities treated as enabled; default: all of `knownCapabilities`, as the CVO loads (it only
   * filters by enabled capabilities when applying). A narrower set previews what apply would touch.
   */
  enabledCapabilities?: readonly string[];
  /** GOARCH-style architecture of this process, used when the metadata names none (`amd64`, `arm64`, …). */
  architecture: string;
  /** Called for each manifest the filter drops, with the reason (upstream logs these at V(2)). */
  onExcluded?: (manifest: Manifest, reason: string) => void;
  /**
   * Called for every parsed manifest in load order, with its exclusion reason or undefined when included
   * (previews such as `syncworker render` count and explain with it). Only meaningful if the load succeeds.
   */
  onManifest?: (manifest: Manifest, reason: string | undefined) => void;
  /**
   * Called for ignored non-string `url` / channel metadata, and for a `manifests/` file skipped because its
   * template does not render (upstream logs a warning for both).
   */
  onWarning?: (message: string) => void;
  /** Checked before each file, so a superseded load stops early; its reason is thrown as-is. */
  signal?: AbortSignal;
  /** Bounds on alias expansion and nesting; default `DEFAULT_PAYLOAD_LIMITS` (yaml-decode.ts). */
  limits?: PayloadLimits;
}

export const DEFAULT_CLUSTER_PROFILE = "self-managed-high-availability";
export const CVO_MANIFEST_DIR = "manifests";
export const RELEASE_MANIFEST_DIR = "release-manifests";
export const RELEASE_METADATA_FILE = "release-metadata";
export const IMAGE_REFERENCES_FILE = "image-references";
/** Optional: health rules for the payload's own kinds; no extension, so it is never read as a manifest. */
export const HEALTH_RULES_FILE = "health-rules";

const MANIFEST_FILE = /\.(yaml|yml|json)$/;
/** Files read ahead of the one being parsed: enough to hide I/O latency, few enough to bound memory. */
const READ_AHEAD = 8;

/** Node's `process.arch` spelled as Go's GOARCH (the CVO reports the latter). */
export function goArch(nodeArch: string): string {
  const map: Record<string, string> = { x64: "amd64", ia32: "386", ppc64: "ppc64le" };
  return map[nodeArch] ?? nodeArch;
}

/** Go-style `stat {path}: no such file or directory`, keeping `code` and the original as `cause`. @internal */
export function statError(path: string, err: unknown): Error {
  const code = typeof err === "object" && err !== null ? (err as { code?: unknown }).code : undefined;
  const reason: Record<string, string> = { ENOENT: "no such file or directory", ENOTDIR: "not a directory", EACCES: "permission denied" };
  const text = typeof code === "string" && reason[code] ? reason[code] : err instanceof Error ? err.message : String(err);
  return Object.assign(new Error(`stat ${path}: ${text}`, { cause: err }), { code, path });
}

/**
 * Upstream `ValidateDirectory`: the two manifest directories, then the two metadata files, must exist.
 * The first failure is thrown as-is (its `code` says why, e.g. `ENOENT`).
 */
export async function validateDirectory(dir: string, fs: PayloadFs): Promise<void> {
  const paths = [
    join(dir, CVO_MANIFEST_DIR),
    join(dir, RELEASE_MANIFEST_DIR),
    join(dir, RELEASE_MANIFEST_DIR, RELEASE_METADATA_FILE),
    join(dir, RELEASE_MANIFEST_DIR, IMAGE_REFERENCES_FILE),
  ];
  for (const path of paths) {
    try {
      await fs.stat(path);
    } catch (err) {
      throw statError(path, err);
    }
  }
}

/** The inclusion filter the CVO applies at load time, from load options with their defaults. */
export function loadTimeFilter(
  opts: Pick<LoadOptions, "exclude" | "featureSet" | "enabledFeatureGates" | "clusterProfile" | "knownCapabilities" | "enabledCapabilities">,
  majorVersion?: bigint,
): IncludeFilter {
  return {
    exclude: opts.exclude ?? "",
    featureSet: opts.featureSet ?? "",
    enabledFeatureGates: opts.enabledFeatureGates ?? new Set(),
    majorVersion,
    profile: opts.clusterProfile ?? DEFAULT_CLUSTER_PROFILE,
    capabilities: { known: opts.knownCapabilities, enabled: opts.enabledCapabilities ?? opts.knownCapabilities },
  };
}

/**
 * Loads the payload in `dir` for pull spec `releaseImage`. Every failure is a {@link PayloadError} naming
 * the file (and, for manifests, the document and line); manifest problems are collected per file and
 * thrown together with reason `UpdatePayloadIntegrity`, as upstream does. Nothing partial is ever
 * returned. The result has `verifiedImage: false` and no `loadedAt`: the sync worker fills those in.
 */
export async function loadUpdate(dir: string, releaseImage: string, opts: LoadOptions, fs: PayloadFs): Promise<PayloadUpdate> {
  opts.signal?.throwIfAborted();
  try {
    return await load(dir, releaseImage, opts, fs);
  } catch (err) {
    if (opts.signal?.aborted && err === opts.signal.reason) throw err;
    throw PayloadError.from(err);
  }
}

async function load(dir: string, releaseImage: string, opts: LoadOptions, fs: PayloadFs): Promise<PayloadUpdate> {
  try {
    await validateDirectory(dir, fs);
  } catch (err) {
    const path: unknown = (err as { path?: unknown }).path;
    throw PayloadError.from(err, "MissingFile", typeof path === "string" ? relative(dir, path) : "");
  }
  const base = await fs.realpath(dir);
  const budget = decodeBudget(opts.limits);
  const [cvoDir, releaseDir] = await Promise.all([
    payloadSubdirectory(fs, dir, base, CVO_MANIFEST_DIR),
    payloadSubdirectory(fs, dir, base, RELEASE_MANIFEST_DIR),
  ]);
  const meta = await readMetadata(fs, base, releaseDir, RELEASE_METADATA_FILE, "ReleaseMetadata", (text) => parseReleaseMetadata(text, opts.architecture));
  for (const w of meta.warnings) opts.onWarning?.(w);
  const imageRef = await readMetadata(fs, base, releaseDir, IMAGE_REFERENCES_FILE, "ImageReferences", (text) =>
    parseImageReferences(text, meta.version, budget),
  );

  const healthRules = await readHealthRules(fs, base, releaseDir);

  // The version is valid SemVer by now, so its major is the digits before the first dot.
  const filter = loadTimeFilter(opts, BigInt(meta.version.slice(0, meta.version.indexOf("."))));
  const renderData = { ReleaseImage: releaseImage, ClusterProfile: filter.profile ?? DEFAULT_CLUSTER_PROFILE, Images: imagesFromImageRef(imageRef) };
  const tasks = [
    { name: CVO_MANIFEST_DIR, dir: cvoDir, render: true, skip: new Set<string>() },
    { name: RELEASE_MANIFEST_DIR, dir: releaseDir, render: false, skip: new Set([RELEASE_METADATA_FILE, IMAGE_REFERENCES_FILE]) },
  ];

  const manifests: Manifest[] = [];
  const excluded: ExcludedManifest[] = [];
  const problems: PayloadProblem[] = [];
  for (const task of tasks) {
    const entries = (await fs.readdir(task.dir)).sort((a, b) => compareGoStrings(a.name, b.name));
    const files = entries.filter((e) => e.type !== "directory" && MANIFEST_FILE.test(e.name) && !task.skip.has(e.name));
    const read = (e: (typeof files)[number]): Promise<FileRead> => readText(fs, base, join(task.dir, e.name), `${task.name}/${e.name}`, e.type);
    // Keep a few reads in flight, so disk and thread-pool waits overlap with parsing.
    const reads: (Promise<FileRead> | undefined)[] = files.slice(0, READ_AHEAD).map(read);
    for (const [i, entry] of files.entries()) {
      opts.signal?.throwIfAborted();
      const result = await (reads[i] ?? read(entry));
      reads[i] = undefined;
      const ahead = files[i + READ_AHEAD];
      if (ahead) reads[i + READ_AHEAD] = read(ahead);
      const file = `${task.name}/${entry.name}`;
      if ("error" in result) {
        const { error } = result;
        // Upstream passes read errors through unprefixed (Go's name the path); a bad encoding is a parse failure.
        if (error instanceof InvalidUtf8Error) problems.push({ file, line: error.line, message: `parse ${entry.name}: error parsing: ${error.message}` });
        else problems.push({ file, message: messageOf(error) });
        continue;
      }
      const parsed = parseFile(result.text, entry.name, file, task.render ? renderData : undefined, budget, problems, opts.onWarning);
      for (const m of parsed) {
        const reason = exclusionReason(m, filter);
        opts.onManifest?.(m, reason);
        if (reason === undefined) {
          manifests.push(m);
          continue;
        }
        excluded.push({ file: m.originalFilename, gvk: m.gvk, namespace: namespaceOf(m), name: nameOf(m), reason });
        opts.onExcluded?.(m, reason);
      }
    }
  }

  if (problems.length > 0) {
    // k8s utilerrors.Aggregate: duplicate messages collapse; brackets only for several distinct ones.
    const distinct = [...new Set(problems.map((p) => p.message))];
    const agg = distinct.length === 1 ? (distinct[0] ?? "") : `[${distinct.join(", ")}]`;
    throw new PayloadError({ kind: "Manifests", message: `Error loading manifests from ${dir}: ${agg}`, problems });
  }
  return {
    release: { version: meta.version, image: releaseImage, url: meta.url, channels: meta.channels },
    architecture: meta.architecture,
    manifestHash: manifestHash(manifests),
    manifests,
    imageRef,
    excluded,
    ...(healthRules === undefined ? {} : { healthRules }),
    verifiedImage: false,
  };
}

/** `release-manifests/health-rules` when the payload has one; unreadable, it refuses the payload naming the file. */
async function readHealthRules(fs: PayloadFs, base: string, releaseDir: string): Promise<PayloadUpdate["healthRules"]> {
  const file = `${RELEASE_MANIFEST_DIR}/${HEALTH_RULES_FILE}`;
  const path = join(releaseDir, HEALTH_RULES_FILE);
  try {
    await fs.stat(path);
  } catch (err) {
    if ((err as { code?: unknown }).code === "ENOENT") return undefined;
    throw new PayloadError({ kind: "HealthRules", message: `${file}: ${messageOf(statError(path, err))}`, problems: [{ file, message: messageOf(err) }] });
  }
  try {
    return { file, text: await readPayloadFile(fs, base, path, file) };
  } catch (err) {
    throw new PayloadError({ kind: "HealthRules", message: `${file}: ${messageOf(err)}`, problems: [{ file, message: messageOf(err) }], cause: err });
  }
}

type FileRead = { text: string } | { error: unknown };

/**
 * `manifests/` or `release-manifests/` of the payload `dir` (resolved: `base`), resolved; a link out of the payload
 * is refused without saying where it leads.
 */
async function payloadSubdirectory(fs: PayloadFs, dir: string, base: string, name: string): Promise<string> {
  const real = await fs.realpath(join(dir, name));
  if (isWithin(base, real)) return real;
  const text = `${name} is a symbolic link leading out of the payload`;
  throw new PayloadError({ kind: "Manifests", message: `Error loading manifests from ${dir}: ${text}`, problems: [{ file: name, message: text }] });
}

/**
 * Reads a file of the payload `base` (resolved): a regular file, or a symbolic link to one inside the payload (a
 * file of unknown `type` is resolved like a link). Anything else is refused naming `file`, without reading or
 * revealing what lies outside the payload and without blocking on a FIFO.
 */
async function readPayloadFile(fs: PayloadFs, base: string, path: string, file: string, type?: PayloadEntryType): Promise<string> {
  if (type === "file") return fs.readFile(path);
  if (type !== undefined && type !== "symlink") throw new Error(`${file} is ${NOT_REGULAR[type]}, not a regular file`);
  const real = await fs.realpath(path);
  if (!isWithin(base, real)) throw new Error(`${file} is a symbolic link leading out of the payload`);
  return fs.readFile(real);
}

/** A file's text, or why it could not be read; never rejects (so a read-ahead cannot go unhandled). */
function readText(fs: PayloadFs, base: string, path: string, file: string, type: PayloadEntryType): Promise<FileRead> {
  return readPayloadFile(fs, base, path, file, type).then(
    (text) => ({ text }),
    (error: unknown) => ({ error }),
  );
}

/** Reads and validates one metadata file; any failure names it in the message too (the status shows only that). */
async function readMetadata<T>(fs: PayloadFs, base: string, releaseDir: string, name: string, kind: PayloadErrorKind, parse: (text: string) => T): Promise<T> {
  const file = `${RELEASE_MANIFEST_DIR}/${name}`;
  try {
    return parse(await readPayloadFile(fs, base, join(releaseDir, name), file));
  } catch (err) {
    const line = err instanceof MetadataError || err instanceof InvalidUtf8Error ? err.line : undefined;
    const text = `${file}${line === undefined ? "" : `:${line}`}: ${messageOf(err)}`;
    throw new PayloadError({ kind, message: text, problems: [{ file, line, message: messageOf(err) }], cause: err });
  }
}

/**
 * Renders (for `manifests/`) and parses one file. A template that does not render skips the file with a
 * warning: upstream tolerates it because an older CVO loading a newer payload may not know every template
 * field, and the newer CVO reloads the whole payload once it runs. Parse failures are recorded in `problems`
 * with upstream's prefix (`parse {name}: `) and the file yields no manifests.
 */
function parseFile(
  text: string,
  name: string,
  file: string,
  renderData: TemplateData | undefined,
  budget: DecodeBudget,
  problems: PayloadProblem[],
  warn: ((message: string) => void) | undefined,
): Manifest[] {
  let source = text;
  if (renderData) {
    try {
      source = renderTemplate(text, renderData, undefined, budget);
    } catch (err) {
      if (!(err instanceof TemplateError)) throw err;
      // Over the budget is the payload's fault, not a template an older CVO may not know: refused, not skipped.
      if (err.phase === "limit") {
        problems.push({ file, line: err.line, message: `render ${name}: ${err.message}` });
        return [];
      }
      const stage = err.phase === "parse" ? "failed to parse manifest" : "failed to execute template";
      warn?.(`Skipping manifest ${file}: template rendering failed (may require newer CVO): ${stage}: ${err.message}`);
      return [];
    }
  }
  try {
    return parseManifests(source, name, budget);
  } catch (err) {
    if (!(err instanceof ManifestParseError)) throw err;
    problems.push({ file, document: err.document, line: err.line, message: `parse ${name}: ${err.message}` });
    return [];
  }
}

/**
 * The seed's `VerifyPayloadVersion` step: an empty requested version adopts the payload's; any other
 * must equal it. Returns the version to record as desired.
 */
export function verifyPayloadVersion(update: Pick<PayloadUpdate, "release">, requested: string): string {
  const actual = update.release.version;
  if (requested === "" || requested === actual) return actual;
  const text = `release image version ${actual} does not match the expected upstream version ${requested}`;
  throw new PayloadError({ kind: "VersionMismatch", message: text, problems: [{ file: `${RELEASE_MANIFEST_DIR}/${RELEASE_METADATA_FILE}`, message: text }] });
}
