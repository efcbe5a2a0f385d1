import type { KubeObject, Manifest } from "../../payload/manifest.js";
import { checkClusterOperator, readinessCheckFor } from "../../readiness/index.js";
import type { PayloadState, ResourceApplier } from "../../worker/index.js";
import type { SimulatedControllers } from "./controllers.js";
import { refOf, type ObjectStore } from "./store.js";

const DELETE_ANNOTATION = "release.openshift.io/delete";
const CREATE_ONLY_ANNOTATION = "release.openshift.io/create-only";

function withoutStatus(obj: KubeObject): KubeObject {
  const { status: _status, ...rest } = obj;
  return rest;
}

function isClusterOperator(m: Manifest): boolean {
  return m.gvk.group === "config.openshift.io" && m.gvk.kind === "ClusterOperator";
}

/**
 * Applies manifests to the embedded cluster with the CVO builders' rules that matter to a sync:
 * ClusterOperator precreation and health, the delete and create-only annotations, and readiness
 * checks of workloads and CRDs after apply.
 */
export class EmbeddedApplier implements ResourceApplier {
  constructor(
    private readonly store: ObjectStore,
    private readonly controllers: SimulatedControllers,
  ) {}

  async apply(manifest: Manifest, mode: PayloadState, signal: AbortSignal): Promise<void> {
    signal.throwIfAborted();
    const obj = manifest.obj;
    const ref = refOf(obj);
    if (isClusterOperator(manifest)) return this.#clusterOperator(obj, mode);

    const annotations = obj.metadata?.annotations ?? {};
    const deletion = annotations[DELETE_ANNOTATION];
    if (deletion !== undefined) {
      if (deletion !== "true") throw new Error(`Invalid delete annotation "${DELETE_ANNOTATION}" value: "${deletion}"`);
      // Deletions are only issued while updating, as upstream.
      if (mode === "Updating" && this.store.tryGet(ref)) this.store.delete(ref);
      return;
    }
    if (annotations[CREATE_ONLY_ANNOTATION]?.toLowerCase() === "true" && this.store.tryGet(ref)) return;

    const { object } = this.store.apply(withoutStatus(obj));
    const failure = readinessCheckFor(ref.group, ref.kind)?.(object, mode);
    if (failure) throw failure;
  }

  #clusterOperator(obj: KubeObject, mode: PayloadState): void {
    const ref = refOf(obj);
    if (mode === "Precreating") {
      if (this.store.tryGet(ref)) return;
      this.store.apply(withoutStatus(obj));
      const relatedObjects = (obj["status"] as { relatedObjects?: unknown } | undefined)?.relatedObjects;
      if (relatedObjects !== undefined) this.store.updateStatus(ref, { relatedObjects });
      return;
    }
    this.controllers.expectOperatorVersions(obj);
    const failure = checkClusterOperator(obj, this.store.get(ref), mode);
    if (failure) throw failure;
  }
}
