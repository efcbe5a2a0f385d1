/**
 * `LoadUpdate` (spec §1.1–1.8): validates a payload directory, reads its release metadata and image
 * references, then every manifest file in a fixed order (which defines task indices and the hash),
 * rendering the CVO's own `manifests/` as templates and filtering with the load-time inclusion rules.
 * All file access goes through {@link PayloadFs}, so tests can load from memory.
 */
import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { compareGoStrings } from "./go-json.js";
import { manifestHash } from "./hash.js";
import { exclusionReason, type IncludeFilter } from "./include.js";
import type { Manifest, PayloadUpdate } from "./manifest.js";
import { parseImageReferences, parseReleaseMetadata } from "./metadata.js";
import { ManifestParseError, parseManifests } from "./parse.js";
import { renderTemplate, TemplateError } from "./template.js";
import { UpdateError } from "./update-error.js";

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
  /** True iff the cluster's feature set is TechPreviewNoUpgrade; default false. */
  includeTechPreview?: boolean;
  /** `CLUSTER_PROFILE`; default {@link DEFAULT_CLUSTER_PROFILE}. Also the template's `.ClusterProfile`. */
  clusterProfile?: string;
  /** Every capability this build knows; at load time only unknown capability names exclude. */
  knownCapabilities: readonly string[];
  /** GOARCH-style architecture of this process, used when the metadata names none (`amd64`, `arm64`, …). */
  architecture: string;
  /** Called for each manifest the filter drops, with the reason (upstream logs these at V(2)). */
  onExcluded?: (manifest: Manifest, reason: string) => void;
  /** Called for ignored non-string `url` / channel metadata (upstream logs a warning). */
  onWarning?: (message: string) => void;
  /** Checked before each file, so a superseded load stops early. */
  signal?: AbortSignal;
}

export const DEFAULT_CLUSTER_PROFILE = "self-managed-high-availability";
export const CVO_MANIFEST_DIR = "manifests";
export const RELEASE_MANIFEST_DIR = "release-manifests";
export const RELEASE_METADATA_FILE = "release-metadata";
export const IMAGE_REFERENCES_FILE = "image-references";

const MANIFEST_FILE = /\.(yaml|yml|json)$/;

/** Node's `process.arch` spelled as Go's GOARCH (the CVO reports the latter). */
export function goArch(nodeArch: string): string {
  const map: Record<string, string> = { x64: "amd64", ia32: "386", ppc64: "ppc64le" };
  return map[nodeArch] ?? nodeArch;
}

/** True for a "does not exist" failure (the downloader treats it as "not yet downloaded"). */
export function isNotExist(err: unknown): boolean {
  return typeof err === "object" && err !== null && (err as { code?: unknown }).code === "ENOENT";
}

/** Go-style `stat {path}: no such file or directory`, keeping `code` and the original as `cause`. @internal */
export function statError(path: string, err: unknown): Error {
  const code = typeof err === "object" && err !== null ? (err as { code?: unknown }).code : undefined;
  const reason: Record<string, string> = { ENOENT: "no such file or directory", ENOTDIR: "not a directory", EACCES: "permission denied" };
  const text = typeof code === "string" && reason[code] ? reason[code] : err instanceof Error ? err.message : String(err);
  return Object.assign(new Error(`stat ${path}: ${text}`, { cause: err }), { code });
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

/**
 * Loads the payload in `dir` for pull spec `releaseImage`. Metadata problems throw plain errors;
 * manifest problems are collected per file and thrown together as
 * `UpdateError{reason: "UpdatePayloadIntegrity"}`. The result has `verifiedImage: false` and no
 * `loadedAt`: the sync worker fills those in.
 */
export async function loadUpdate(dir: string, releaseImage: string, opts: LoadOptions, fs: PayloadFs = nodePayloadFs): Promise<PayloadUpdate> {
  opts.signal?.throwIfAborted();
  await validateDirectory(dir, fs);
  const cvoDir = join(dir, CVO_MANIFEST_DIR);
  const releaseDir = join(dir, RELEASE_MANIFEST_DIR);
  const meta = parseReleaseMetadata(await fs.readFile(join(releaseDir, RELEASE_METADATA_FILE)), opts.architecture);
  for (const w of meta.warnings) opts.onWarning?.(w);
  const imageRef = parseImageReferences(await fs.readFile(join(releaseDir, IMAGE_REFERENCES_FILE)), meta.version);

  const profile = opts.clusterProfile ?? DEFAULT_CLUSTER_PROFILE;
  const filter: IncludeFilter = {
    exclude: opts.exclude ?? "",
    includeTechPreview: opts.includeTechPreview ?? false,
    profile,
    capabilities: { known: opts.knownCapabilities, enabled: opts.knownCapabilities },
  };
  const renderData = { ReleaseImage: releaseImage, ClusterProfile: profile };
  const tasks = [
    { dir: cvoDir, render: true, skip: new Set<string>() },
    { dir: releaseDir, render: false, skip: new Set([RELEASE_METADATA_FILE, IMAGE_REFERENCES_FILE]) },
  ];

  const manifests: Manifest[] = [];
  const errors: string[] = [];
  for (const task of tasks) {
    const entries = (await fs.readdir(task.dir)).sort((a, b) => compareGoStrings(a.name, b.name));
    for (const entry of entries) {
      if (!entry.isFile || !MANIFEST_FILE.test(entry.name) || task.skip.has(entry.name)) continue;
      opts.signal?.throwIfAborted();
      let text: string;
      try {
        text = await fs.readFile(join(task.dir, entry.name));
      } catch (err) {
        errors.push(message(err)); // upstream passes read errors through unprefixed
        continue;
      }
      if (task.render) {
        try {
          text = renderTemplate(text, renderData);
        } catch (err) {
          if (!(err instanceof TemplateError)) throw err;
          const stage = err.phase === "parse" ? "failed to parse manifest" : "failed to execute template";
          errors.push(`preprocess ${entry.name}: ${stage}: ${err.message}`);
          continue;
        }
      }
      let parsed: Manifest[];
      try {
        parsed = parseManifests(text, entry.name);
      } catch (err) {
        if (!(err instanceof ManifestParseError)) throw err;
        errors.push(`parse ${entry.name}: ${err.message}`);
        continue;
      }
      for (const m of parsed) {
        const reason = exclusionReason(m, filter);
        if (reason === undefined) manifests.push(m);
        else opts.onExcluded?.(m, reason);
      }
    }
  }

  if (errors.length > 0) {
    // k8s utilerrors.Aggregate: duplicate messages collapse; brackets only for several distinct ones.
    const distinct = [...new Set(errors)];
    const agg = distinct.length === 1 ? (distinct[0] ?? "") : `[${distinct.join(", ")}]`;
    throw new UpdateError({ reason: "UpdatePayloadIntegrity", message: `Error loading manifests from ${dir}: ${agg}` });
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
