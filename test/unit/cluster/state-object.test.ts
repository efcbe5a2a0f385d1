import assert from "node:assert/strict";
import { test } from "node:test";
import { ApiError } from "../../../src/cluster/errors.js";
import type { KubeObjectClient } from "../../../src/cluster/kube/object-client.js";
import { KubeStateStore } from "../../../src/cluster/kube/state-object.js";
import type { KubeObject } from "../../../src/payload/manifest.js";
import { StateConflictError, StateError, type PersistedState } from "../../../src/service/index.js";
import { EMPTY_CLUSTER_VERSION } from "../../../src/status/index.js";
import { EMPTY_STATUS } from "../../../src/worker/index.js";

type Stored = KubeObject & { metadata: { name: string; namespace: string; resourceVersion?: string }; data?: Record<string, string> };
const REF = { group: "", version: "v1", kind: "ConfigMap", namespace: "ns", name: "syncworker-state" };

/**
 * The API server's side of one ConfigMap: writes with optimistic concurrency (a stale resourceVersion is a 409).
 * `lose` makes the next write land but its answer be lost, as a dropped connection does, failing with `lose`.
 */
class OneObjectServer {
  object: Stored | undefined;
  #version = 0;
  lose: Error | undefined;
  /** Makes the next write fail before it lands. */
  fail: Error | undefined;

  async get(): Promise<Stored | undefined> {
    return this.object && structuredClone(this.object);
  }

  async post(obj: Stored): Promise<Stored> {
    if (this.object) throw new ApiError(REF, "AlreadyExists", 409, "exists");
    return this.#store(obj);
  }

  async replace(obj: Stored): Promise<Stored> {
    if (obj.metadata.resourceVersion !== this.object?.metadata.resourceVersion) throw new ApiError(REF, "Conflict", 409, "the object has been modified");
    return this.#store(obj);
  }

  #store(obj: Stored): Stored {
    const failed = this.fail;
    this.fail = undefined;
    if (failed) throw failed;
    this.object = { ...structuredClone(obj), metadata: { ...obj.metadata, resourceVersion: String(++this.#version) } };
    const lost = this.lose;
    this.lose = undefined;
    if (lost) throw lost;
    return structuredClone(this.object);
  }
}

const never = new AbortController().signal;
const state = (writer: string, published: number): PersistedState => ({
  writer,
  savedAt: new Date(Date.UTC(2026, 0, 1)),
  revision: { published, reserved: published + 1000 },
  spec: undefined,
  status: EMPTY_STATUS,
  clusterVersion: EMPTY_CLUSTER_VERSION,
});

function store(server: OneObjectServer): KubeStateStore {
  return new KubeStateStore(server as unknown as KubeObjectClient, "ns", () => undefined);
}

test("a save whose answer was lost but which landed succeeds, and the next save follows it", async () => {
  const server = new OneObjectServer();
  const a = store(server);
  server.lose = new Error("other side closed");
  await a.save(state("a", 1), never);
  server.lose = new ApiError(REF, "Conflict", 409, "the object has been modified"); // the transport's retry met the first attempt
  await a.save(state("a", 2), never);
  await a.save(state("a", 3), never);
  assert.equal((await store(server).load(never))?.revision.published, 3);
});

test("a save that did not land fails naming the object; another writer's object is a conflict naming it", async () => {
  const server = new OneObjectServer();
  const a = store(server);
  server.fail = new Error("connect ECONNREFUSED 127.0.0.1:6443");
  await assert.rejects(
    a.save(state("a", 1), never),
    (err: unknown) => err instanceof StateError && err.message === "ConfigMap ns/syncworker-state: cannot be written: connect ECONNREFUSED 127.0.0.1:6443",
  );
  assert.equal(server.object, undefined);
  await a.save(state("a", 1), never);
  const b = store(server);
  await b.load(never);
  await b.save(state("b", 2), never);
  await assert.rejects(a.save(state("a", 3), never), (err: unknown) => err instanceof StateConflictError && err.writer === "b");
  assert.equal((await store(server).load(never))?.writer, "b", "nothing overwritten");
});
