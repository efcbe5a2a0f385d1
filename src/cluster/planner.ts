import { createTwoFilesPatch, FILE_HEADERS_ONLY } from "diff";
import { stringify } from "yaml";
import type { KubeObject, Manifest } from "../payload/manifest.js";
import { PlanError, type ObjectEffect, type ObjectPlanner, type PayloadBrings } from "../worker/index.js";
import { CREATE_ONLY_ANNOTATION, DELETE_ANNOTATION, withoutStatus } from "./applier.js";
import { ApiError, refOf } from "./errors.js";
import { formatRef, type ObjectRef, isClusterOperator } from "../core/index.js";
import type { ObjectClient } from "./object-client.js";

/** Server bookkeeping that every write moves and no manifest sets: left out of diffs and fingerprints. */
const NOISE = ["managedFields", "resourceVersion", "generation", "creationTimestamp", "uid", "selfLink"];

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Stands for the object's own uid wherever the server copied it into the object. */
const OWN_UID = "(uid)";

/**
 * Keys sorted at every level, so equal objects print and compare equal whatever order a server sent; the object's
 * own uid replaced, so a dry-run create (which draws a new uid each time) plans the same twice.
 */
function canonical(value: unknown, uid: string | undefined): Json {
  if (Array.isArray(value)) return value.map((v) => canonical(v, uid));
  if (uid !== undefined && value === uid) return OWN_UID;
  if (value === null || typeof value !== "object") return value as Json;
  const out: { [key: string]: Json } = {};
  for (const key of Object.keys(value).sort()) out[key] = canonical((value as Record<string, unknown>)[key], uid);
  return out;
}

/**
 * The object as the fields an apply decides: no status (controllers write it) and no server bookkeeping. The server
 * also copies an object's uid into its own fields (a Job's selector and pod labels, `controller-uid`): those read as
 * {@link OWN_UID}, or every preview of a payload creating a Job would have another plan digest.
 */
function comparable(obj: KubeObject): Json {
  const { metadata, ...rest } = withoutStatus(obj);
  const meta: Record<string, unknown> = { ...metadata };
  const uid = typeof meta["uid"] === "string" && meta["uid"] !== "" ? meta["uid"] : undefined;
  for (const key of NOISE) delete meta[key];
  // An empty map is no map (the API server omits them; the embedded store keeps one after a merge).
  for (const key of ["labels", "annotations"]) if (Object.keys(meta[key] ?? {}).length === 0) delete meta[key];
  return canonical({ ...rest, metadata: meta }, uid);
}

/** `group.version.Kind.namespace.name`, as kubectl diff names the files it compares. */
function fileName(ref: ObjectRef): string {
  return [ref.group || "core", ref.version, ref.kind, ref.namespace, ref.name].filter((part) => part !== "").join(".");
}

/** The server cannot dry-run the object because the payload itself brings what it lacks: its CRD or its namespace. */
function broughtByPayload(err: unknown, ref: ObjectRef, brings: PayloadBrings): boolean {
  if (!(err instanceof ApiError)) return false;
  if (err.statusReason === "NoMatch") return brings.kinds.has(`${ref.group}/${ref.kind}`);
  return err.statusReason === "NotFound" && ref.namespace !== "" && brings.namespaces.has(ref.namespace);
}

/**
 * Computes what the applier would do to one manifest, with the applier's rules (ClusterOperators are only
 * precreated, the delete and create-only annotations) and a server-side apply dry run (`dryRun=All`, our field
 * manager) for everything it would apply. Writes nothing.
 */
export class ClusterPlanner implements ObjectPlanner {
  constructor(private readonly client: ObjectClient) {}

  async effect(manifest: Manifest, brings: PayloadBrings, signal: AbortSignal): Promise<ObjectEffect> {
    const ref = refOf(manifest.obj);
    try {
      return await this.#effect(manifest, ref, brings, signal);
    } catch (err) {
      signal.throwIfAborted();
      if (err instanceof PlanError) throw err;
      const reason = err instanceof ApiError ? err.statusReason : "DryRunFailed";
      // An ApiError's message already names the object and its reason.
      const detail = (err instanceof Error ? err.message : String(err)).replace(`${formatRef(ref)}: ${reason}: `, "");
      throw new PlanError(reason, formatRef(ref), `${formatRef(ref)} dry-run failed (${reason}): ${detail}`, { cause: err });
    }
  }

  async #effect(manifest: Manifest, ref: ObjectRef, brings: PayloadBrings, signal: AbortSignal): Promise<ObjectEffect> {
    const obj = manifest.obj;
    // A kind the server does not serve yet (its CRD comes with this payload) has no live objects.
    const live = await this.client.get(ref, signal).catch((err: unknown) => {
      if (err instanceof ApiError && err.statusReason === "NoMatch") return undefined;
      throw err;
    });
    const annotations = obj.metadata?.annotations ?? {};
    const deletion = annotations[DELETE_ANNOTATION];
    if (deletion !== undefined) {
      if (deletion !== "true")
        throw new PlanError("InvalidAnnotation", formatRef(ref), `Invalid delete annotation "${DELETE_ANNOTATION}" value: "${deletion}"`);
      return live ? { action: "delete", diff: "", fingerprint: JSON.stringify([comparable(live), null]) } : UNCHANGED;
    }
    // The worker never applies a ClusterOperator (its operator owns it), it only precreates a missing one; a
    // create-only object is left alone once it exists.
    if (live && (isClusterOperator(manifest.gvk) || annotations[CREATE_ONLY_ANNOTATION]?.toLowerCase() === "true")) return UNCHANGED;

    const sent = withoutStatus(obj);
    let result: KubeObject;
    try {
      result = await this.client.dryRunApply(sent, signal);
    } catch (err) {
      // The dry run cannot see what the same update creates first: the object as sent is the best prediction.
      // A kind nobody brings fails the apply too ("no matches for kind"), and so fails the plan.
      if (live || !broughtByPayload(err, ref, brings)) throw err;
      result = sent;
    }
    const after = comparable(result);
    if (!live) return { action: "create", diff: "", fingerprint: JSON.stringify([null, after]) };
    const before = comparable(live);
    const beforeText = stringify(before);
    const afterText = stringify(after);
    if (beforeText === afterText) return UNCHANGED;
    const name = fileName(ref);
    const diff = createTwoFilesPatch(`live/${name}`, `merged/${name}`, beforeText, afterText, undefined, undefined, { headerOptions: FILE_HEADERS_ONLY });
    return { action: "change", diff, fingerprint: JSON.stringify([before, after]) };
  }
}

const UNCHANGED: ObjectEffect = { action: "unchanged", diff: "", fingerprint: "" };
