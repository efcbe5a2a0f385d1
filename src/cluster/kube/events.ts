import type { EventRecorder } from "../../core/index.js";
import type { KubeObjectClient } from "./object-client.js";

/** Where the CVO records its events: on the ClusterVersion, in the operator's namespace. */
const REGARDING = { apiVersion: "config.openshift.io/v1", kind: "ClusterVersion", name: "version" };

/**
 * Records the worker's events as core/v1 Events, as the CVO's recorder does. Recording is
 * fire-and-forget and never fails a sync: an event that cannot be written (the namespace does not
 * exist yet on a fresh cluster, the server is down) goes to `onError` and is dropped, as client-go's
 * broadcaster drops events it cannot deliver.
 */
export class KubeEventRecorder implements EventRecorder {
  #sequence = 0;
  #pending = new Set<Promise<void>>();

  constructor(
    private readonly client: KubeObjectClient,
    private readonly onError: (err: unknown) => void,
    private readonly signal: AbortSignal,
    private readonly namespace: string,
    private readonly now: () => Date = () => new Date(),
  ) {}

  event(type: "Normal" | "Warning", reason: string, message: string): void {
    if (this.signal.aborted) return;
    const time = this.now();
    const stamp = time.toISOString();
    const name = `version.${time.getTime().toString(16)}${(this.#sequence++).toString(16).padStart(4, "0")}`;
    const event = {
      apiVersion: "v1",
      kind: "Event",
      metadata: { name, namespace: this.namespace },
      involvedObject: { ...REGARDING, namespace: this.namespace },
      type,
      reason,
      message: message.slice(0, 1024),
      source: { component: "syncworker" },
      reportingComponent: "syncworker",
      reportingInstance: "syncworker",
      firstTimestamp: stamp,
      lastTimestamp: stamp,
      count: 1,
    };
    const write = this.client
      .create(event, this.signal)
      .then(() => undefined)
      .catch(this.onError)
      .finally(() => this.#pending.delete(write));
    this.#pending.add(write);
  }

  /** Waits for events already being written (for an orderly stop). */
  async flush(): Promise<void> {
    await Promise.all(this.#pending);
  }
}
