import type { Manifest } from "../payload/manifest.js";

/** Retry schedule for one task (semantics of k8s `wait.Backoff` as the CVO vendors it). */
export interface Backoff {
  /** Initial sleep in milliseconds. */
  readonly durationMs: number;
  readonly factor: number;
  /** Jitter fraction added on top of each sleep (0 = none). */
  readonly jitter: number;
  /** Attempts left; 1 means a single attempt with no sleep. */
  readonly steps: number;
  /** Upper bound of the sleep in milliseconds (0 = none). */
  readonly capMs: number;
}

/** One manifest to apply, with its 1-based position in the payload. */
export class Task {
  constructor(
    readonly index: number,
    readonly total: number,
    readonly manifest: Manifest,
    readonly backoff: Backoff,
  ) {}

  /** `kind "ns/name" (i of n)`, as the CVO prints tasks in logs and messages. */
  toString(): string {
    const meta = this.manifest.obj.metadata;
    const name = meta?.name ? meta.name : this.manifest.originalFilename;
    const ns = meta?.namespace ?? "";
    const id = ns ? `${ns}/${name}` : name;
    return `${this.manifest.gvk.kind.toLowerCase()} "${id}" (${this.index} of ${this.total})`;
  }
}
