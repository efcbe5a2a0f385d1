import { PayloadError } from "../payload/index.js";
import type { KubeObject, Manifest, PayloadUpdate } from "../payload/manifest.js";
import { checkClusterOperator, compileHealthRules, readinessCheckFor, type HealthRules } from "../readiness/index.js";
import type { PayloadState, ResourceApplier } from "../worker/index.js";
import { type Tracing, type ObjectRef, isClusterOperator, sleep } from "../core/index.js";
import { ApiError, refOf } from "./errors.js";
import type { ObjectClient } from "./object-client.js";

export const DELETE_ANNOTATION = "release.openshift.io/delete";
export const CREATE_ONLY_ANNOTATION = "release.openshift.io/create-only";

export function withoutStatus(obj: KubeObject): KubeObject {
  const { status: _status, ...rest } = obj;
  return rest;
}

const CRD_SETTLE_MS = 5_000;
const CRD_POLL_MS = 100;

function isCrd(m: Manifest): boolean {
  return m.gvk.group === "apiextensions.k8s.io" && m.gvk.kind === "CustomResourceDefinition";
}

/**
 * Remembers what each apply stored, so a reconcile pass can skip what nobody changed since (a real
 * cluster's watch-fed cache). Without one every pass applies every manifest.
 */
export interface AppliedObjectCache {
  /** The live object when applying `raw` again would change nothing: applied recently from the same manifest, edited by nobody since. */
  unchanged(ref: ObjectRef, raw: string): KubeObject | undefined;
  /** Sends one apply of `raw` through `send` and remembers what the server stored. */
  apply(ref: ObjectRef, raw: string, send: () => Promise<KubeObject>): Promise<KubeObject>;
  /** The object as the live feed shows it (`object` undefined: absent); undefined while the feed's view of its kind is not current. */
  current(ref: ObjectRef): { readonly object: KubeObject | undefined } | undefined;
}

export interface ClusterApplierHooks {
  /** Lets reconcile passes skip unchanged objects; none when absent. */
  readonly cache?: AppliedObjectCache;
  /** Called before a ClusterOperator's health is checked (the embedded cluster's operators react to it). */
  readonly onClusterOperatorCheck?: (expected: KubeObject) => void;
  /** The worker waits on this ClusterOperator; its owner remembers the first time (for the 40-minute grace). */
  readonly onOperatorWait?: (name: string) => void;
  /** A `readiness` span per check, a child of the worker's task span; none when absent. */
  readonly tracing?: Tracing;
  /**
   * `--health-rules`: a kind's rule replaces its built-in readiness check, and gives one to a kind without. It
   * overrides a payload's own rule for the same kind or group (see {@link ClusterApplier.forPayload}).
   */
  readonly healthRules?: HealthRules;
}

/**
 * Applies manifests with the CVO builders' rules that matter to a sync: ClusterOperator precreation
 * and health, the delete and create-only annotations, and readiness checks after apply.
 */
export class ClusterApplier implements ResourceApplier {
  /** One applier per payload with rules of its own, for as long as the payload is held. */
  readonly #forPayload = new WeakMap<PayloadUpdate, ClusterApplier>();

  constructor(
    private readonly client: ObjectClient,
    private readonly hooks: ClusterApplierHooks = {},
  ) {}

  /**
   * The applier for a payload with `release-manifests/health-rules`: its rules under the server's (a kind's entry
   * still overrides a group's; the server's file wins for the same kind or group). Rules that do not compile
   * refuse the payload at LoadPayload, naming the file, the rule and the field.
   */
  forPayload(payload: PayloadUpdate): ClusterApplier {
    const given = payload.healthRules;
    if (!given) return this;
    let applier = this.#forPayload.get(payload);
    if (!applier) {
      let own: HealthRules;
      try {
        own = compileHealthRules(given.text, given.file);
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        throw new PayloadError({ kind: "HealthRules", message, problems: [{ file: given.file, message }], cause: err });
      }
      applier = new ClusterApplier(this.client, { ...this.hooks, healthRules: this.hooks.healthRules?.over(own) ?? own });
      this.#forPayload.set(payload, applier);
    }
    return applier;
  }

  async apply(manifest: Manifest, mode: PayloadState, signal: AbortSignal): Promise<void> {
    signal.throwIfAborted();
    const obj = manifest.obj;
    const ref = refOf(obj);
    if (isClusterOperator(manifest.gvk)) return this.#clusterOperator(obj, mode, signal);

    const annotations = obj.metadata?.annotations ?? {};
    const deletion = annotations[DELETE_ANNOTATION];
    if (deletion !== undefined) {
      if (deletion !== "true") throw new Error(`Invalid delete annotation "${DELETE_ANNOTATION}" value: "${deletion}"`);
      // Deletions are only issued while updating, as upstream.
      if (mode === "Updating" && (await this.#get(ref, signal))) await this.client.delete(ref, signal);
      return;
    }
    if (annotations[CREATE_ONLY_ANNOTATION]?.toLowerCase() === "true" && (await this.#get(ref, signal))) return;

    const applied = await this.#applyOrSkip(manifest, ref, mode, signal);
    const check = this.hooks.healthRules?.checkFor(ref.group, ref.kind) ?? readinessCheckFor(ref.group, ref.kind);
    if (!check) return;
    await this.#readiness(obj, async () => {
      let failure = check(applied, mode);
      // A real API server establishes a new or changed CRD a moment after accepting it; waiting briefly
      // here (as the CVO waits for CRD completion) saves a whole task backoff for every CRD in the payload.
      for (let waited = 0; failure && isCrd(manifest) && waited < CRD_SETTLE_MS; waited += CRD_POLL_MS) {
        await sleep(CRD_POLL_MS, signal);
        const live = await this.#get(ref, signal);
        failure = live ? check(live, mode) : failure;
      }
      if (failure) throw failure;
    });
  }

  /** The live object: from the watch-fed cache where its view is current (no request), else a GET. */
  async #get(ref: ObjectRef, signal: AbortSignal): Promise<KubeObject | undefined> {
    const seen = this.hooks.cache?.current(ref);
    return seen ? seen.object : this.client.get(ref, signal);
  }

  /** In a reconcile pass an object nobody changed since our last apply of the same manifest is not sent again. */
  async #applyOrSkip(manifest: Manifest, ref: ObjectRef, mode: PayloadState, signal: AbortSignal): Promise<KubeObject> {
    const send = (): Promise<KubeObject> => this.client.apply(withoutStatus(manifest.obj), signal);
    const cache = this.hooks.cache;
    if (!cache) return send();
    return (mode === "Reconciling" ? cache.unchanged(ref, manifest.raw) : undefined) ?? cache.apply(ref, manifest.raw, send);
  }

  /** Runs a readiness check in its own span, so a trace shows waiting apart from applying. */
  #readiness(obj: KubeObject, fn: () => Promise<void>): Promise<void> {
    const tracing = this.hooks.tracing;
    if (!tracing?.enabled) return fn();
    const ref = refOf(obj);
    const id = ref.namespace ? `${ref.namespace}/${ref.name}` : ref.name;
    return tracing.span(
      `readiness ${ref.kind} ${id}`,
      { "k8s.resource.kind": ref.kind, "k8s.namespace.name": ref.namespace, "k8s.resource.name": ref.name },
      async (span) => {
        try {
          await fn();
        } catch (err) {
          // A not-ready verdict is the expected answer while waiting, named by its reason.
          span.setAttributes({ "syncworker.readiness.ready": false, "syncworker.error.reason": (err as { reason?: string }).reason });
          throw err;
        }
        span.setAttributes({ "syncworker.readiness.ready": true });
      },
    );
  }

  async #clusterOperator(obj: KubeObject, mode: PayloadState, signal: AbortSignal): Promise<void> {
    const ref = refOf(obj);
    if (mode === "Precreating") {
      if ((await this.client.create(withoutStatus(obj), signal)) === "exists") return;
      const relatedObjects = (obj["status"] as { relatedObjects?: unknown } | undefined)?.relatedObjects;
      if (relatedObjects !== undefined) await this.client.patchStatus(ref, { relatedObjects }, signal);
      return;
    }
    this.hooks.onOperatorWait?.(ref.name);
    this.hooks.onClusterOperatorCheck?.(obj);
    await this.#readiness(obj, async () => {
      const live = await this.#get(ref, signal);
      if (!live) throw new ApiError(ref, "NotFound", 404, "not found");
      const failure = checkClusterOperator(obj, live, mode);
      if (failure) throw failure;
    });
  }
}
