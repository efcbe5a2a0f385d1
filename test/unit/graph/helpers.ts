/** Builders and comparison shapes shared by the graph tests. */
import { gvkOf, type KubeObject, type Manifest } from "../../../src/payload/manifest.js";
import { Task, type Backoff, type TaskNode } from "../../../src/graph/index.js";

const ONCE: Backoff = { durationMs: 0, factor: 1, jitter: 0, steps: 1, capMs: 0 };

function manifest(obj: KubeObject, originalFilename: string): Manifest {
  return { originalFilename, raw: JSON.stringify(obj), gvk: gvkOf(obj), obj };
}

/** A Pod task whose original file name is `file` (no object name, like upstream's split tests). */
export function pod(file: string): Task {
  return new Task(0, 0, manifest({ apiVersion: "v1", kind: "Pod" }, file), ONCE);
}

/** A batch/v1 Job task whose original file name is `file`. */
export function job(file: string): Task {
  return new Task(0, 0, manifest({ apiVersion: "batch/v1", kind: "Job" }, file), ONCE);
}

/** A ConfigMap `default/{name}` loaded from file `{name}`, as upstream's RunGraph tests build tasks. */
export function configMap(name: string): Task {
  const obj = { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "default" } };
  return new Task(0, 0, manifest(obj, name), ONCE);
}

/** ConfigMap tasks, one per name. */
export function tasks(...names: string[]): Task[] {
  return names.map(configMap);
}

/** A node in test notation; omitted edges are empty. */
export interface NodeSpec {
  tasks?: Task[];
  in?: number[];
  out?: number[];
}

export function node(spec: NodeSpec): TaskNode {
  return { in: spec.in ?? [], tasks: spec.tasks ?? [], out: spec.out ?? [] };
}

/** `P(file)` / `J(file)` / `C(file)` by kind, so expectations show what moved where. */
export function label(task: Task): string {
  const kind = task.manifest.gvk.kind;
  const tag = kind === "Job" ? "J" : kind === "Pod" ? "P" : "C";
  return `${tag}(${task.manifest.originalFilename})`;
}

/** A comparable rendering of a node: edges plus task labels. */
export interface NodeShape {
  in: number[];
  tasks: string[];
  out: number[];
}

export function shapeOf(n: TaskNode): NodeShape {
  return { in: [...n.in], tasks: n.tasks.map(label), out: [...n.out] };
}

/** Expected shape in short form: labels plus optional edges. */
export function shape(labels: string[], edges: { in?: number[]; out?: number[] } = {}): NodeShape {
  return { in: edges.in ?? [], tasks: labels, out: edges.out ?? [] };
}

/** Buckets rendered as file names, `null` kept as is. */
export function bucketNames(buckets: TaskNode[][] | null): string[][][] | null {
  return buckets === null ? null : buckets.map((b) => b.map((n) => n.tasks.map((t) => t.manifest.originalFilename)));
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
