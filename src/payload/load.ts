/**
 * `LoadUpdate` (spec §1.1–1.8): validates a payload directory, reads its release metadata and image
 * references, then every manifest file in a fixed order (which defines task indices and the hash),
 * rendering the CVO's own `manifests/` as templates and filtering with the load-time inclusion rules.
 * All file access goes through {@link PayloadFs}, so tests can load from memory.
 */
import { readdir, readFile, stat } from "node:fs/promises";
import { join, relative } from "node:path";
import { compareGoStrings } from "./go-json.js";
import { manifestHash } from "./hash.js";
import { PayloadError, type PayloadErrorKind, type PayloadProblem } from "./errors.js";
import { exclusionReason, type IncludeFilter } from "./include.js";
import type { Manifest, PayloadUpdate } from "./manifest.js";
import { MetadataError, parseImageReferences, parseReleaseMetadata } from "./metadata.js";
import { ManifestParseError, parseManifests } from "./parse.js";
import { renderTemplate, TemplateError } from "./template.js";

/** The few file operations loading needs; injected so the payload folder stays free of direct I/O. */
export interface PayloadFs {
  /** Entries of `dir`; `isFile` is false only for directories (which loading skips), as Go's lstat-based listing does. */
  readdir(dir: string): Promise<{ name: string; isFile: boolean }[]>;
  /** File contents as UTF-8. */
  readFile(path: string): Promise<string>;
  stat(path: string): Promise<{ isDirectory: boolean }>;
}

/** {@link PayloadFs} over `node:fs/promises`. */
export const nodePayloadFs: PayloadFs = {
  async readdir(dir) {
    const entries = await readdir(dir, { withFileTypes: true });
    return entries.map((e) => ({ name: e.name, isFile: !e.isDirectory() }));
  },
  readFile: (path) => readFile(path, "utf8"),
  async stat(path) {
    return { isDirectory: (await stat(path)).isDirectory() };
  },
};

/** Load-time inclusion arguments and environment. Absent fields take the CVO's defaults. */
export interface LoadOptions {
  /** `EXCLUDE_MANIFESTS` identifier; default "" (no manifest carries `exclude.release.openshift.io/`). */
  exclude?: string;
  /**
   * The cluster's feature set (`FeatureGate.spec.featureSet`): "" or `Default` (the default),
   * `TechPreviewNoUpgrade`, `DevPreviewNoUpgrade` or `CustomNoUpgrade`.
   */
  featureSet?: string;
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
  /** Called for ignored non-string `url` / channel metadata (upstream logs a warning). */
  onWarning?: (message: string) => void;
  /** Checked before each file, so a superseded load stops early; its reason is thrown as-is. */
  signal?: AbortSignal;
}

export const DEFAULT_CLUSTER_PROFILE = "self-managed-high-availability";
export const CVO_MANIFEST_DIR = "manifests";
export const RELEASE_MANIFEST_DIR = "release-manifests";
export const RELEASE_METADATA_FILE = "release-metadata";
export const IMAGE_REFERENCES_FILE = "image-references";

const MANIFEST_FILE = /\.(yaml|yml|json)$/;
/** Files read ahead of the one being parsed: enough to hide I/O latency, few enough to bound memory. */
const READ_AHEAD = 8;

/** Node's `process.arch` spelled as Go's GOARCH (the CVO reports the latter). */
export function goArch(nodeArch: string): string {
  const map: Record<string, string> = { x64: "amd64", ia32: "386", ppc64: "ppc64le" };
  return map[nodeArch] ?? nodeArch;
}

/** True for a "does not exist" failure, also when wrapped (the downloader treats it as "not yet downloaded"). */
export function isNotExist(err: unknown): boolean {
  for (let e = err; typeof e === "object" && e !== null; e = (e as { cause?: unknown }).cause) {
    if ((e as { code?: unknown }).code === "ENOENT") return true;
  }
  return false;
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
 * The first failure is thrown as-is (check it with {@link isNotExist}).
 */
export async function validateDirectory(dir: string, fs: PayloadFs = nodePayloadFs): Promise<void> {
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

const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** The inclusion filter the CVO applies at load time, from load options with their defaults. */
export function loadTimeFilter(opts: Pick<LoadOptions, "exclude" | "featureSet" | "clusterProfile" | "knownCapabilities" | "enabledCapabilities">): IncludeFilter {
  return {
    exclude: opts.exclude ?? "",
    featureSet: opts.featureSet ?? "",
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
export async function loadUpdate(dir: string, releaseImage: string, opts: LoadOptions, fs: PayloadFs = nodePayloadFs): Promise<PayloadUpdate> {
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
  const cvoDir = join(dir, CVO_MANIFEST_DIR);
  const releaseDir = join(dir, RELEASE_MANIFEST_DIR);
  const meta = await readMetadata(fs, releaseDir, RELEASE_METADATA_FILE, "ReleaseMetadata", (text) => parseReleaseMetadata(text, opts.architecture));
  for (const w of meta.warnings) opts.onWarning?.(w);
  const imageRef = await readMetadata(fs, releaseDir, IMAGE_REFERENCES_FILE, "ImageReferences", (text) => parseImageReferences(text, meta.version));

  const filter = loadTimeFilter(opts);
  const renderData = { ReleaseImage: releaseImage, ClusterProfile: filter.profile ?? DEFAULT_CLUSTER_PROFILE };
  const tasks = [
    { name: CVO_MANIFEST_DIR, dir: cvoDir, render: true, skip: new Set<string>() },
    { name: RELEASE_MANIFEST_DIR, dir: releaseDir, render: false, skip: new Set([RELEASE_METADATA_FILE, IMAGE_REFERENCES_FILE]) },
  ];

  const manifests: Manifest[] = [];
  const problems: PayloadProblem[] = [];
  for (const task of tasks) {
    const entries = (await fs.readdir(task.dir)).sort((a, b) => compareGoStrings(a.name, b.name));
    const files = entries.filter((e) => e.isFile && MANIFEST_FILE.test(e.name) && !task.skip.has(e.name));
    // Keep a few reads in flight, so disk and thread-pool waits overlap with parsing.
    const reads: (Promise<FileRead> | undefined)[] = files.slice(0, READ_AHEAD).map((f) => readText(fs, join(task.dir, f.name)));
    for (const [i, entry] of files.entries()) {
      opts.signal?.throwIfAborted();
      const read = await (reads[i] ?? readText(fs, join(task.dir, entry.name)));
      reads[i] = undefined;
      const ahead = files[i + READ_AHEAD];
      if (ahead) reads[i + READ_AHEAD] = readText(fs, join(task.dir, ahead.name));
      const file = `${task.name}/${entry.name}`;
      if ("error" in read) {
        problems.push({ file, message: message(read.error) }); // upstream passes read errors through unprefixed
        continue;
      }
      const parsed = parseFile(read.text, entry.name, file, task.render ? renderData : undefined, problems);
      for (const m of parsed) {
        const reason = exclusionReason(m, filter);
        opts.onManifest?.(m, reason);
        if (reason === undefined) manifests.push(m);
        else opts.onExcluded?.(m, reason);
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
    verifiedImage: false,
  };
}

type FileRead = { text: string } | { error: unknown };

/** A file's text, or why it could not be read; never rejects (so a read-ahead cannot go unhandled). */
function readText(fs: PayloadFs, path: string): Promise<FileRead> {
  return fs.readFile(path).then(
    (text) => ({ text }),
    (error: unknown) => ({ error }),
  );
}

/** Reads and validates one metadata file; any failure names it. */
async function readMetadata<T>(fs: PayloadFs, releaseDir: string, name: string, kind: PayloadErrorKind, parse: (text: string) => T): Promise<T> {
  const file = `${RELEASE_MANIFEST_DIR}/${name}`;
  try {
    return parse(await fs.readFile(join(releaseDir, name)));
  } catch (err) {
    const line = err instanceof MetadataError ? err.line : undefined;
    throw new PayloadError({ kind, message: message(err), problems: [{ file, line, message: message(err) }], cause: err });
  }
}

/**
 * Renders (for `manifests/`) and parses one file. Failures are recorded in `problems` with upstream's
 * prefixes (`preprocess {name}: `, `parse {name}: `) and the file yields no manifests.
 */
function parseFile(text: string, name: string, file: string, renderData: Readonly<Record<string, string>> | undefined, problems: PayloadProblem[]): Manifest[] {
  let source = text;
  if (renderData) {
    try {
      source = renderTemplate(text, renderData);
    } catch (err) {
      if (!(err instanceof TemplateError)) throw err;
      const stage = err.phase === "parse" ? "failed to parse manifest" : "failed to execute template";
      problems.push({ file, line: err.line, message: `preprocess ${name}: ${stage}: ${err.message}` });
      return [];
    }
  }
  try {
    return parseManifests(source, name);
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
