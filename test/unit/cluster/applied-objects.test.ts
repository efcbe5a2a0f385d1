import assert from "node:assert/strict";
import { test } from "node:test";
import { AppliedObjects, FULL_RESYNC_MS, type LiveObjects } from "../../../src/cluster/applied-objects.js";
import { objectKey, type ObjectRef } from "../../../src/core/index.js";
import type { KubeObject } from "../../../src/payload/manifest.js";

const REF: ObjectRef = { group: "", version: "v1", kind: "ConfigMap", namespace: "ns", name: "cm" };
const RAW = JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cm", namespace: "ns" }, data: { a: "1" } });

function stored(resourceVersion: string, data: Record<string, string> = { a: "1" }, extra: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cm", namespace: "ns", resourceVersion }, data, ...extra };
}

/** A live view the test sets by hand, as a watch would. */
class FakeLive implements LiveObjects {
  synced = true;
  readonly objects = new Map<string, KubeObject>();
  follow(): void {}
  lookup(ref: ObjectRef): { synced: boolean; object: KubeObject | undefined } {
    return { synced: this.synced, object: this.objects.get(objectKey(ref)) };
  }
}

function setup(): { live: FakeLive; applied: AppliedObjects; drift: string[]; clock: { now: number } } {
  const live = new FakeLive();
  const drift: string[] = [];
  const clock = { now: 0 };
  return {
    live,
    drift,
    clock,
    applied: new AppliedObjects(
      live,
      (_ref, message) => drift.push(message),
      () => clock.now,
    ),
  };
}

test("an object nobody touched since the same manifest was applied is not sent again", async () => {
  const { live, applied } = setup();
  assert.equal(applied.unchanged(REF, RAW), undefined, "never applied: send it");
  await applied.apply(REF, RAW, async () => stored("5"));
  assert.equal(applied.unchanged(REF, RAW), undefined, "not in the live view yet: send it");
  live.objects.set(objectKey(REF), stored("5"));
  assert.deepEqual(applied.unchanged(REF, RAW), stored("5"));
  assert.equal(applied.unchanged(REF, RAW.replace('"1"', '"2"')), undefined, "another manifest: send it");
  live.synced = false;
  assert.equal(applied.unchanged(REF, RAW), undefined, "a view being re-listed is not trusted");
});

test("a status-only change by a controller is not an edit; a spec change or deletion by someone else is drift", async () => {
  const { live, applied, drift } = setup();
  await applied.apply(REF, RAW, async () => stored("5"));
  const statusOnly = stored("6", { a: "1" }, { status: { observed: true } });
  live.objects.set(objectKey(REF), statusOnly);
  applied.observed(REF, statusOnly);
  assert.deepEqual(drift, []);
  assert.deepEqual(applied.unchanged(REF, RAW), statusOnly, "another resourceVersion with the same content is still ours");

  const edited = stored("7", { a: "tampered" });
  live.objects.set(objectKey(REF), edited);
  applied.observed(REF, edited);
  assert.equal(applied.unchanged(REF, RAW), undefined);
  applied.observed(REF, undefined);
  assert.deepEqual(drift, ["ConfigMap/ns/cm was changed by someone else", "ConfigMap/ns/cm was deleted by someone else"]);
});

test("our own write on its way is not drift, and objects never applied are not watched for it", async () => {
  const { applied, drift } = setup();
  applied.observed(REF, stored("1", { a: "x" }));
  let release!: () => void;
  const writing = applied.apply(REF, RAW, () => new Promise<KubeObject>((resolve) => (release = () => resolve(stored("9")))));
  applied.observed(REF, stored("9"));
  release();
  await writing;
  assert.deepEqual(drift, []);
});

test("every object is sent again once its last apply is older than the full resync period", async () => {
  const { live, applied, clock } = setup();
  await applied.apply(REF, RAW, async () => stored("5"));
  live.objects.set(objectKey(REF), stored("5"));
  clock.now = FULL_RESYNC_MS;
  assert.ok(applied.unchanged(REF, RAW));
  clock.now = FULL_RESYNC_MS + 1;
  assert.equal(applied.unchanged(REF, RAW), undefined);
});

test("the live object is read from the feed only while its view is current", () => {
  const { live, applied } = setup();
  assert.deepEqual(applied.current(REF), { object: undefined }, "a current view without the object: absent, no GET needed");
  live.objects.set(objectKey(REF), stored("5"));
  assert.deepEqual(applied.current(REF), { object: stored("5") });
  live.synced = false;
  assert.equal(applied.current(REF), undefined, "a view being listed again: ask the server");
});
