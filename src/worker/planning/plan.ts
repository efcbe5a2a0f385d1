/**
 * The plan of an update: what applying a payload would do to each object of the live cluster, computed
 * without writing (server-side apply dry runs behind {@link ObjectPlanner}). Preview streams it; the worker
 * recomputes it before accepting a payload, to hold the update to blast-radius limits and to a previewed
 * plan's digest. Pure: the cluster is reached only through the injected planner.
 */
import { createHash } from "node:crypto";
import { exclusionReason } from "../../payload/include.js";
import { nameOf, namespaceOf, type Manifest, type PayloadUpdate } from "../../payload/manifest.js";
import { brandError, type RiskName } from "../../core/index.js";
import {
  capabilitiesStatus,
  implicitlyEnabledCapabilities,
  overrideFor,
  setFromImplicitlyEnabled,
  type ClusterCapabilities,
  type ComponentOverride,
} from "../../policy/index.js";

/**
 * The plan could not be computed for one object: a dry run the server refused (`reason` is its API Status
 * reason, e.g. `Invalid`, `Forbidden`) or a manifest the applier would refuse too. Names the object.
 */
export class PlanError extends Error {
  constructor(
    readonly reason: string,
    /** The object, as `Kind/namespace/name`. */
    readonly object: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = "PlanError";
  }
  static {
    brandError(this, "PlanError");
  }
}

export type PlanAction = "create" | "change" | "unchanged" | "delete" | "skipped";

/** What the cluster says applying one included manifest would do. */
export interface ObjectEffect {
  readonly action: "create" | "change" | "unchanged" | "delete";
  /** For a change: a unified diff of the live object against the dry-run result; else empty. */
  readonly diff: string;
  /**
   * Canonical text of the change (the object before and after, without server bookkeeping), hashed into the
   * plan digest; empty for unchanged. Equal texts mean the same change.
   */
  readonly fingerprint: string;
}

/**
 * What the payload itself brings: a dry run cannot see an object the same update creates first, so a planner
 * needs to know whether a missing kind or namespace will be there by the time the object is applied.
 */
export interface PayloadBrings {
  /** `group/Kind` of every CustomResourceDefinition in the payload. */
  readonly kinds: ReadonlySet<string>;
  readonly namespaces: ReadonlySet<string>;
}

/** The cluster side of a plan: one manifest's effect, computed without writing. Must honour `signal`. */
export interface ObjectPlanner {
  effect(manifest: Manifest, brings: PayloadBrings, signal: AbortSignal): Promise<ObjectEffect>;
}

/** The kinds and namespaces the payload's manifests create. */
export function payloadBrings(manifests: readonly Manifest[]): PayloadBrings {
  const kinds = new Set<string>();
  const namespaces = new Set<string>();
  for (const m of manifests) {
    if (m.gvk.group === "apiextensions.k8s.io" && m.gvk.kind === "CustomResourceDefinition") {
      const spec = m.obj["spec"] as { group?: unknown; names?: { kind?: unknown } } | undefined;
      kinds.add(`${String(spec?.group)}/${String(spec?.names?.kind)}`);
    }
    if (m.gvk.group === "" && m.gvk.kind === "Namespace") namespaces.add(nameOf(m));
  }
  return { kinds, namespaces };
}

/** One object's predicted effect, as Preview streams it. */
export interface PlannedObject {
  readonly action: PlanAction;
  readonly group: string;
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
  /** The manifest's file in the payload. */
  readonly file: string;
  readonly diff: string;
  /** For skipped: the filter that excluded the object. */
  readonly skippedReason: string;
}

export type PlanCounts = Readonly<Record<PlanAction, number>>;

export interface Plan {
  readonly counts: PlanCounts;
  /**
   * `sha256:<hex>` over the release image the plan is of and the set of creates, changes and deletes (identity and
   * fingerprint), in a fixed order.
   */
  readonly digest: string;
  /** The payload's included manifests: the base of `max_changed_percent`. */
  readonly manifests: number;
}

/** How much one update may do; an absent field is unlimited. */
export interface BlastRadiusLimits {
  readonly maxDeletions?: number;
  readonly maxChangedPercent?: number;
}

/** What an Update may ask of its acceptance: limits on its plan, the digest of the plan it was previewed with, the risks it accepts. */
export interface UpdateControls {
  readonly limits?: BlastRadiusLimits;
  /** A Preview's plan_digest: the payload is refused at PreconditionChecks when its plan differs. */
  readonly expectedPlanDigest?: string;
  /** Checks that pass as warnings when they fail, by name (`force` accepts every one). */
  readonly acceptRisks?: readonly RiskName[];
}

/** What decides which payload objects an update touches: the request's overrides and the effective capabilities. */
export interface PlanScope {
  readonly overrides: readonly ComponentOverride[];
  readonly capabilities: ClusterCapabilities;
}

/** What plans need of the worker's dependencies. */
export interface PlanDeps {
  /** Computes objects' effects on the cluster without writing; absent, no plan can be computed. */
  readonly planner?: ObjectPlanner;
  /** The server's default blast-radius limits; a request's own fields take precedence. */
  readonly limits?: BlastRadiusLimits;
  /** The cluster's enabled feature gates, for the feature-gated capabilities. */
  readonly featureGates?: ReadonlySet<string>;
}

/**
 * The overrides and capabilities an apply of `loaded` would run with: the capabilities the previous payload's
 * resources keep enabled implicitly are added, as the worker adds them once the payload is accepted.
 */
export function planScope(
  loaded: PayloadUpdate,
  current: PayloadUpdate | undefined,
  capabilities: ClusterCapabilities,
  overrides: readonly ComponentOverride[],
): PlanScope {
  const implicit = current ? implicitlyEnabledCapabilities(loaded.manifests, current.manifests, capabilities) : capabilities.implicitlyEnabled;
  return { overrides, capabilities: setFromImplicitlyEnabled(implicit, capabilities) };
}

/** Dry runs in flight at once: enough to hide a real API server's round trips, few enough not to crowd the sync. */
const CONCURRENCY = 8;

/**
 * Computes the plan of applying `payload`: load-time exclusions and the apply-time filters (overrides,
 * capabilities) are skipped with the filter named, every other manifest goes to the planner. `onObject` hears
 * each object in payload order (load-time exclusions first). A planner error fails the plan.
 */
export async function computePlan(
  payload: PayloadUpdate,
  scope: PlanScope,
  planner: ObjectPlanner,
  onObject: (object: PlannedObject) => void,
  signal: AbortSignal,
): Promise<Plan> {
  const counts: Record<PlanAction, number> = { create: 0, change: 0, unchanged: 0, delete: 0, skipped: 0 };
  const entries: string[] = [];
  const emit = (object: PlannedObject): void => {
    counts[object.action]++;
    onObject(object);
  };
  for (const ex of payload.excluded ?? []) {
    emit({
      action: "skipped",
      group: ex.gvk.group,
      kind: ex.gvk.kind,
      namespace: ex.namespace,
      name: ex.name,
      file: ex.file,
      diff: "",
      skippedReason: ex.reason,
    });
  }
  const caps = { capabilities: capabilitiesStatus(scope.capabilities) };
  const skipReason = (m: Manifest): string | undefined =>
    overrideFor(scope.overrides, m)?.unmanaged === true ? "unmanaged by a component override" : exclusionReason(m, caps);
  const brings = payloadBrings(payload.manifests);
  // Dry runs overlap; results are taken in payload order. Each is settled at once, so a failure behind the one
  // awaited never goes unobserved (the first failure in order fails the plan).
  const pending: Promise<{ effect: ObjectEffect } | { skipped: string } | { error: unknown }>[] = [];
  const start = (): void => {
    const m = payload.manifests[pending.length];
    if (!m) return;
    const reason = skipReason(m);
    pending.push(
      reason !== undefined
        ? Promise.resolve({ skipped: reason })
        : planner.effect(m, brings, signal).then(
            (effect) => ({ effect }),
            (error: unknown) => ({ error }),
          ),
    );
  };
  for (let i = 0; i < CONCURRENCY; i++) start();
  for (const [i, m] of payload.manifests.entries()) {
    const result = await pending[i]!;
    signal.throwIfAborted();
    start();
    if ("error" in result) throw result.error;
    const identity = { group: m.gvk.group, kind: m.gvk.kind, namespace: namespaceOf(m), name: nameOf(m), file: m.originalFilename };
    if ("skipped" in result) {
      emit({ action: "skipped", ...identity, diff: "", skippedReason: result.skipped });
      continue;
    }
    const { action, diff, fingerprint } = result.effect;
    if (action !== "unchanged") entries.push(JSON.stringify([action, identity.group, identity.kind, identity.namespace, identity.name, fingerprint]));
    emit({ action, ...identity, diff, skippedReason: "" });
  }
  return { counts, digest: planDigest(payload.release.image, entries), manifests: payload.manifests.length };
}

/** The digest of a set of change entries of release image `image`. */
export function planDigest(image: string, entries: readonly string[]): string {
  const hash = createHash("sha256");
  // The image too: a plan pinned by digest applies only to the image it was previewed with (by digest, once a
  // tag is resolved), even where another image would make the same changes.
  hash.update(`${image}\n`);
  // Sorted: the digest is of the set of changes, whatever order the payload lists them in.
  for (const entry of [...entries].sort()) hash.update(entry).update("\n");
  return `sha256:${hash.digest("hex")}`;
}

/** Request limits field by field over the server's defaults. */
export function effectiveLimits(requested: BlastRadiusLimits | undefined, defaults: BlastRadiusLimits | undefined): BlastRadiusLimits {
  const maxDeletions = requested?.maxDeletions ?? defaults?.maxDeletions;
  const maxChangedPercent = requested?.maxChangedPercent ?? defaults?.maxChangedPercent;
  return { ...(maxDeletions === undefined ? {} : { maxDeletions }), ...(maxChangedPercent === undefined ? {} : { maxChangedPercent }) };
}

export function hasLimits(limits: BlastRadiusLimits): boolean {
  return limits.maxDeletions !== undefined || limits.maxChangedPercent !== undefined;
}

const percent = (value: number): string => `${Math.round(value * 10) / 10}%`;

/**
 * The limits the plan exceeds, each naming the count and the limit; empty within them. Changes are creates,
 * changes and deletes, as a share of the payload's included manifests.
 */
export function limitViolations(plan: Pick<Plan, "counts" | "manifests">, limits: BlastRadiusLimits): string[] {
  const violations: string[] = [];
  const deletions = plan.counts.delete;
  if (limits.maxDeletions !== undefined && deletions > limits.maxDeletions) {
    violations.push(`the update would delete ${deletions} object${deletions === 1 ? "" : "s"}, more than the limit of ${limits.maxDeletions} (max_deletions)`);
  }
  const changed = plan.counts.create + plan.counts.change + plan.counts.delete;
  const share = plan.manifests === 0 ? 0 : (changed * 100) / plan.manifests;
  if (limits.maxChangedPercent !== undefined && share > limits.maxChangedPercent) {
    violations.push(
      `the update would change ${changed} of ${plan.manifests} objects (${percent(share)}), more than the limit of ${percent(limits.maxChangedPercent)} (max_changed_percent)`,
    );
  }
  return violations;
}
