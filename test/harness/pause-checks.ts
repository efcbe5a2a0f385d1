// What the pause tests read from a real server: how many tasks it applied (its /metrics), and when a paused server
// has gone quiet (the attempts running at the pause finished).
import type { ComponentOverride } from "@syncworker/client/gen/syncworker/v1/syncworker";
import type { Manifest } from "../../src/payload/index.js";

/** Tasks the server applied so far: the sum of `syncworker_task_duration_seconds_count{result="applied"}` over kinds. */
export async function appliedTasks(metricsAddress: string): Promise<number> {
  const text = await (await fetch(`http://${metricsAddress}/metrics`)).text();
  let sum = 0;
  for (const [, value] of text.matchAll(/^syncworker_task_duration_seconds_count\{[^}]*result="applied"[^}]*\} (\S+)$/gm)) sum += Number(value);
  return sum;
}

/** The `syncworker_update_paused` gauge. */
export async function pausedGauge(metricsAddress: string): Promise<number> {
  const text = await (await fetch(`http://${metricsAddress}/metrics`)).text();
  return Number(/^syncworker_update_paused (\S+)$/m.exec(text)?.[1] ?? Number.NaN);
}

/**
 * Polls `read` until its value has not changed for `quietMs`: a paused server's in-flight attempts have finished.
 * Fails with the last value after `timeoutMs`.
 */
export async function settled(read: () => Promise<string>, quietMs = 1000, timeoutMs = 60_000): Promise<string> {
  let value = await read();
  let since = Date.now();
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline;) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const next = await read();
    if (next !== value) {
      value = next;
      since = Date.now();
    } else if (Date.now() - since >= quietMs) return value;
  }
  throw new Error(`still changing after ${timeoutMs}ms: ${value}`);
}

/**
 * Every ClusterOperator of a payload left unmanaged: on the embedded cluster an operator reports its version only
 * once the worker first checks it, so each one fails a pass (retried from the start); without them a pass applies
 * every other manifest exactly once, which lets a test count what a resumed pass applies.
 */
export function unmanagedClusterOperators(manifests: readonly Manifest[]): ComponentOverride[] {
  return manifests
    .filter((m) => m.gvk.group === "config.openshift.io" && m.gvk.kind === "ClusterOperator")
    .map((m) => ({ kind: "ClusterOperator", group: "config.openshift.io", namespace: "", name: m.obj.metadata?.name ?? "", unmanaged: true }));
}
