/**
 * The service's persisted state: what a restarted or newly elected process needs to carry on where the
 * last one stopped. It plays the part of the CVO's ClusterVersion object: `spec` is the last accepted
 * Update (ClusterVersion spec), `status` and `clusterVersion` what was last published (ClusterVersion
 * status), and `revision` keeps watch revisions moving forward across processes.
 *
 * The document is JSON whose shape is the schemas the worker and the status declare their records with
 * (src/worker/shapes.ts, src/status/shapes.ts): they convert dates, errors and sets both ways, so there is
 * no encoder or decoder here. Both directions validate: a value that does not fit is refused with the
 * path of the offending field, never saved as a file that cannot be read back, nor silently replaced.
 */
import { z } from "zod";
import { brandError, deepFreeze, type Frozen } from "../core/index.js";
import { clusterVersionStatusShape, componentDurationsShape, updateProgressShape } from "../status/index.js";
import { count, desiredSpecShape, isoDate, passPositionShape, syncWorkerStatusShape, type DesiredSpec } from "../worker/index.js";

export type { DesiredSpec };

/**
 * The spec to keep once the worker accepted its release: the plan controls bound that acceptance only, so they are
 * dropped, since a replay would meet a cluster the update has already changed.
 */
export function acceptedSpec(spec: DesiredSpec): DesiredSpec {
  const { limits: _limits, expectedPlanDigest: _digest, ...rest } = spec;
  return rest;
}

const STATE_FORMAT = "syncworker.state/v1";

const stateShape = z.strictObject({
  format: z.literal(STATE_FORMAT),
  /** Who wrote it (the leader's identity, or the host and pid of a single process). */
  writer: z.string(),
  savedAt: isoDate,
  /**
   * `published`: the revision of the snapshot below. `reserved`: no snapshot was or will be published
   * above it by the writer without first saving a higher reservation, so a successor starts above it.
   */
  revision: z.strictObject({ published: count, reserved: count }).refine((r) => r.reserved >= r.published, "reserved must be >= published"),
  /** The last accepted Update, saved as null before the first. */
  spec: z.codec(desiredSpecShape.nullable(), z.custom<z.output<typeof desiredSpecShape> | undefined>(), {
    decode: (spec) => spec ?? undefined,
    encode: (spec) => spec ?? null,
  }),
  status: syncWorkerStatusShape,
  clusterVersion: clusterVersionStatusShape,
  /** Saved while paused: the tasks the held pass applied, which the pass skips when resumed after a restart. */
  position: passPositionShape.optional(),
  /** How long each component took in recent updates: what estimates of the time left are learned from. */
  durations: componentDurationsShape.optional(),
  /** The timing and slow components of the last snapshot, so a standby and a restarted service show them. */
  progress: updateProgressShape.optional(),
});

type Document = z.output<typeof stateShape>;
export type PersistedState = Frozen<Omit<Document, "format">>;

/**
 * Persisted state that cannot be read or written: `where` names the file or Kubernetes object, the
 * message says what is wrong with it (for a bad shape, the path of each offending field).
 */
export class StateError extends Error {
  constructor(
    readonly where: string,
    detail: string,
    cause?: unknown,
  ) {
    super(`${where}: ${detail}`, cause === undefined ? undefined : { cause });
    this.name = "StateError";
  }
  static {
    brandError(this, "StateError");
  }
}

/** The offending fields of a value that does not fit the format, a few of them. */
function problems(error: z.ZodError): string {
  const each = error.issues.map((i) => `${i.path.length > 0 ? i.path.join(".") : "(document)"}: ${i.message}`);
  return each.slice(0, 5).join("; ");
}

/** Objects with their keys in order, so equal states serialize identically however they were built. */
function sortKeys(_key: string, value: unknown): unknown {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * The JSON text of a state, stable in key order so unchanged states serialize identically. A state that does not fit
 * the format (a negative count, an invalid date, a field the format does not have) is a StateError naming the field;
 * `where` names what it was to be saved to.
 */
export function encodeState(state: PersistedState, where = "the state to save"): string {
  // Encoding only reads the state; the schema's output type is merely not read-only.
  const encoded = stateShape.safeEncode({ format: STATE_FORMAT, ...(state as Omit<Document, "format">) });
  if (!encoded.success) throw new StateError(where, `not saved, it is not a syncworker state (${STATE_FORMAT}): ${problems(encoded.error)}`);
  return `${JSON.stringify(encoded.data, sortKeys, 1)}\n`;
}

/** Parses and validates a state document, deep-frozen; `where` names its source in the error. */
export function decodeState(text: string, where: string): PersistedState {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new StateError(where, `not valid JSON: ${(err as Error).message}`, err);
  }
  const parsed = stateShape.safeParse(json);
  if (!parsed.success) throw new StateError(where, `not a syncworker state (${STATE_FORMAT}): ${problems(parsed.error)}`);
  const { format: _format, ...state } = parsed.data;
  return deepFreeze(state);
}
