import assert from "node:assert/strict";
import { test } from "node:test";
import { implicitlyEnabledCapabilities, setCapabilities, type ClusterCapabilities } from "../../../src/policy/index.js";
import { manifest } from "../../harness/worker-harness.js";

const m = (kind: string, caps: string) => manifest("f", { apiVersion: "v1", kind, metadata: { name: "x", annotations: { "capability.openshift.io/name": caps } } });
const caps = (known: string[], enabled: string[], implicit: string[] = []): ClusterCapabilities => ({ known: new Set(known), enabled: new Set(enabled), implicitlyEnabled: implicit });

for (const tc of [
  { name: "basic", current: [m("Test", "cap1")], updated: [m("Test", "cap2")], caps: caps(["cap1", "cap2"], ["cap1"]), want: ["cap2"] },
  { name: "different resource", current: [m("Test", "cap1")], updated: [m("Diff", "cap2")], caps: caps(["cap1", "cap2"], ["cap1"]), want: [] },
  { name: "current not enabled", current: [m("Test", "cap1")], updated: [m("Test", "cap2")], caps: caps(["cap2"], ["cap2"]), want: [] },
  { name: "new cap already enabled", current: [m("Test", "cap1")], updated: [m("Test", "cap2")], caps: caps(["cap1", "cap2"], ["cap1", "cap2"]), want: [] },
  { name: "already implicit", current: [m("Test", "cap1")], updated: [m("Test", "cap2")], caps: caps(["cap1", "cap2"], ["cap1"], ["cap2"]), want: ["cap2"] },
  { name: "two manifests, same new cap", current: [m("Test", "cap1"), m("Test", "cap1")], updated: [m("Test", "cap2"), m("Test", "cap2")], caps: caps(["cap1", "cap2"], ["cap1"]), want: ["cap2"] },
]) {
  test(`implicitly enabled capabilities: ${tc.name}`, () => assert.deepEqual(implicitlyEnabledCapabilities(tc.updated, tc.current, tc.caps), tc.want));
}

test("capabilities: baseline plus additional; previously enabled ones stay on implicitly", () => {
  const c = setCapabilities({ baselineCapabilitySet: "None", additionalEnabledCapabilities: ["baremetal"] }, new Set(["baremetal", "marketplace"]));
  assert.deepEqual([...c.enabled].sort(), ["baremetal", "marketplace"]);
  assert.deepEqual(c.implicitlyEnabled, ["marketplace"]);
  assert.ok(setCapabilities({ baselineCapabilitySet: "", additionalEnabledCapabilities: [] }, new Set()).enabled.has("Console"), "default baseline is vCurrent");
});
