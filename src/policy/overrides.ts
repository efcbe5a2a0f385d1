import type { Manifest } from "../payload/manifest.js";
import { nameOf, namespaceOf } from "../payload/manifest.js";
import type { ComponentOverride } from "./shapes.js";

export type { ComponentOverride };

/** The first override naming this manifest; cluster-scoped objects match any override namespace. */
export function overrideFor(overrides: readonly ComponentOverride[], manifest: Manifest): ComponentOverride | undefined {
  const namespace = namespaceOf(manifest);
  return overrides.find(
    (ov) =>
      ov.group === manifest.gvk.group && ov.kind === manifest.gvk.kind && (namespace === "" || ov.namespace === namespace) && ov.name === nameOf(manifest),
  );
}

/** Order-sensitive deep equality, like Go's reflect.DeepEqual on the override slice. */
export function equalOverrides(a: readonly ComponentOverride[], b: readonly ComponentOverride[]): boolean {
  return (
    a.length === b.length &&
    a.every((ov, i) => {
      const other = b[i];
      return (
        other !== undefined &&
        ov.kind === other.kind &&
        ov.group === other.group &&
        ov.namespace === other.namespace &&
        ov.name === other.name &&
        ov.unmanaged === other.unmanaged
      );
    })
  );
}
