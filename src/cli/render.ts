/**
 * `syncworker render`: loads a payload directory in-process with the same inclusion rules the service
 * uses, and prints the manifests an update would apply, in task order: an index line each, or the manifests
 * themselves (`-o yaml|json`), as rendered from the payload's templates. It is how a user previews what an
 * update will touch, and checks a payload before handing it to the service.
 */
import { isAbsolute, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { compileRenderOptions, type RenderOptions } from "../config/index.js";
import { parseRunLevel } from "../graph/index.js";
import { loadUpdate, type Manifest } from "../payload/index.js";
import { openPayload } from "../retrieval/index.js";
import { isImageReference, pulledPayload } from "./image-arg.js";
import { document, yamlStream } from "./output.js";

/** Where render writes; injected so tests need no process. */
export interface RenderOutput {
  stdout(line: string): void;
  stderr(line: string): void;
}

const dash = (s: string): string => (s === "" ? "-" : s);

/** `<group>/<kind> <namespace>/<name>` with `core` for the empty group and `-` for no namespace. */
export function objectName(o: { readonly group: string; readonly kind: string; readonly namespace: string; readonly name: string }): string {
  return `${o.group || "core"}/${o.kind} ${dash(o.namespace)}/${o.name}`;
}

/** {@link objectName} of a manifest. */
export function describeObject(m: Manifest): string {
  const meta = m.obj.metadata;
  const namespace = typeof meta?.namespace === "string" ? meta.namespace : "";
  const name = typeof meta?.name === "string" ? meta.name : "";
  return objectName({ group: m.gvk.group, kind: m.gvk.kind, namespace, name });
}

/** One output line: `<index> <run-level> <component> <group>/<kind> <namespace>/<name>`; `-` where a file name has no run level. */
export function renderLine(index: number, m: Manifest): string {
  const level = parseRunLevel(m.originalFilename);
  return `${index} ${level?.number ?? "-"} ${level?.component ?? "-"} ${describeObject(m)}`;
}

function directoryOf(image: string): string {
  if (image.startsWith("file://")) return fileURLToPath(image);
  return isAbsolute(image) ? image : resolve(image);
}

/**
 * Loads the payload and writes one line per included manifest, then `included N of M manifests`.
 * Throws the loader's PayloadError (or a ValueError for bad flags) without writing a partial listing.
 */
export async function render(options: RenderOptions, out: RenderOutput, signal?: AbortSignal): Promise<void> {
  const o = compileRenderOptions(options);
  const opened = signal ?? new AbortController().signal;
  const source = isImageReference(o.image) ? await pulledPayload(o.image, o, opened) : { directory: directoryOf(o.image) };
  const { dir, fs } = await openPayload(source, opened);
  const excluded: string[] = [];
  let total = 0;
  const update = await loadUpdate(
    dir,
    o.releaseImage,
    {
      ...o.load,
      signal,
      onWarning: (message) => out.stderr(`warning: ${message}`),
      onManifest: (m, reason) => {
        total++;
        if (reason !== undefined) excluded.push(`excluded ${m.originalFilename} ${describeObject(m)}: ${reason}`);
      },
    },
    fs,
  );
  if (o.showExcluded) for (const line of excluded) out.stderr(line);
  const included = `included ${update.manifests.length} of ${total} manifests`;
  const objects = update.manifests.map((m) => m.obj);
  switch (o.output) {
    case "index":
      update.manifests.forEach((m, i) => out.stdout(renderLine(i + 1, m)));
      out.stdout(included);
      return;
    case "yaml":
      out.stdout(yamlStream(objects).trimEnd());
      break;
    case "json":
      out.stdout(document({ apiVersion: "v1", kind: "List", items: objects }, "json").trimEnd());
      break;
  }
  // stdout carries only the manifests, for `kubectl apply -f -` or a program; the count is for the person.
  out.stderr(included);
}
